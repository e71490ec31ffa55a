/**
 * `@agentbox/tanstack-sandbox`: agentbox sandboxes as a TanStack AI `SandboxProvider`.
 *
 * ```ts
 * const provider = await agentboxSandbox({ baseUrl: "http://localhost:9080", token });
 * const sandbox = defineSandbox({ id: "repo", provider, workspace });
 * ```
 */
export { agentboxSandbox, type AgentboxSandboxProvider } from "./provider.js";
export type { AgentboxSandboxHandle, SandboxFsStat } from "./handle.js";
export type { AgentboxSpawnHandle } from "./spawn.js";
export type { AgentboxSandboxOptions } from "./options.js";
export { toSandboxCapabilities, type AgentboxSandboxCapabilities } from "./capabilities.js";
export { toEnsureBody, toSource, AGENTBOX_WORKSPACE_ROOT } from "./ensure-body.js";
export { translateError, signalName, SandboxCommandError, PROVIDER_NAME } from "./errors.js";
