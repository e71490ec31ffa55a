import type { SandboxCapabilities } from "@tanstack/ai-sandbox";
import type { Capabilities } from "agentbox-client";

/**
 * TanStack's capability set plus `killableProcesses`, which agentbox reports and newer
 * `@tanstack/ai-sandbox` contracts read (callers must not rely on `kill` where it is false).
 */
export interface AgentboxSandboxCapabilities extends SandboxCapabilities {
  killableProcesses: boolean;
}

const NAMES = [
  "fs",
  "exec",
  "env",
  "ports",
  "backgroundProcesses",
  "writableStdin",
  "killableProcesses",
  "snapshots",
  "networkPolicy",
  "durableFilesystem",
  "fork",
] as const satisfies ReadonlyArray<keyof AgentboxSandboxCapabilities>;

/**
 * The capabilities agentbox reports for a provider, in TanStack's shape. Exactly the server's
 * answer: a capability is claimed only when the server says `true`, and one the server does not
 * name (an older server) is `false`, never assumed.
 */
export function toSandboxCapabilities(reported: Partial<Capabilities> | undefined): AgentboxSandboxCapabilities {
  const capabilities = {} as AgentboxSandboxCapabilities;
  for (const name of NAMES) capabilities[name] = reported?.[name] === true;
  return capabilities;
}
