/**
 * Implementations the providers and the sandbox service share on top of the contracts of {@code
 * sandbox.spi}: git desugared to commands ({@code ExecGit}), the bounded capture of an exec's
 * output ({@code BoundedCapture}). Depends on the contracts only; nothing here is a contract.
 */
package dev.agentbox.sandbox.support;
