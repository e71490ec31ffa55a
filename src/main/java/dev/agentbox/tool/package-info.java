/**
 * Tools an agent in a sandbox calls outside it, and the gate every such call passes before it runs
 * (approval rules, interrupts a person answers).
 */
package dev.agentbox.tool;
