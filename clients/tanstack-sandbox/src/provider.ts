import type { SandboxCreateInput, SandboxDestroyInput, SandboxProvider, SandboxResumeInput } from "@tanstack/ai-sandbox";
import { AgentboxClient } from "agentbox-client";
import { toSandboxCapabilities, type AgentboxSandboxCapabilities } from "./capabilities.js";
import { toEnsureBody } from "./ensure-body.js";
import { PROVIDER_NAME, isNotFound, translated } from "./errors.js";
import { createHandle, destroySandbox, type AgentboxSandboxHandle, type HandleContext } from "./handle.js";
import type { AgentboxSandboxOptions } from "./options.js";

/** A TanStack {@link SandboxProvider} whose sandboxes are agentbox sandboxes. */
export interface AgentboxSandboxProvider extends SandboxProvider {
  readonly name: "agentbox";
  /** agentbox's provider behind this one (`docker`, `local`). */
  readonly backend: string;
  /** The client every call goes through, for what TanStack's contract has no word for. */
  readonly client: AgentboxClient;
  capabilities: () => AgentboxSandboxCapabilities;
  create: (input: SandboxCreateInput) => Promise<AgentboxSandboxHandle>;
  resume: (input: SandboxResumeInput) => Promise<AgentboxSandboxHandle | null>;
  destroy: (input: SandboxDestroyInput) => Promise<void>;
}

/**
 * A TanStack AI sandbox provider backed by agentbox.
 *
 * It asks the server once, here, which providers it has and what they can do
 * (`GET /providers`), so `capabilities()` — synchronous in TanStack's contract — answers exactly
 * what the server reported, and a wrong URL or token fails now rather than at the first run.
 *
 * - `create` ensures a sandbox (`POST /sandboxes`, see `toEnsureBody`); the handle's `id` is the
 *   agentbox key.
 * - `resume` looks the key up (`GET /sandboxes/{key}`); an unknown key, another tenant's, or one
 *   whose sandbox was destroyed or reaped resolves `null`, as TanStack expects.
 * - `destroy` deletes it; a sandbox already gone counts as destroyed.
 *
 * There is no `restoreSnapshot`: agentbox restores a key's snapshot itself, when `create` ensures
 * a key whose sandbox is gone and the options ask for `lifecycle.snapshot: "after-setup"`.
 */
export async function agentboxSandbox(options: AgentboxSandboxOptions): Promise<AgentboxSandboxProvider> {
  const ab = new AgentboxClient({
    baseUrl: options.baseUrl,
    token: options.token,
    fetch: options.fetch,
    headers: options.headers,
  });
  const providers = await ab.providers();
  const backend =
    options.provider ?? (providers.some((p) => p.name === "docker") ? "docker" : providers[0]?.name);
  const entry = providers.find((p) => p.name === backend);
  if (entry === undefined) {
    const names = providers.map((p) => p.name).join(", ") || "none";
    throw new Error(`agentbox has no provider "${backend ?? ""}" enabled (enabled: ${names})`);
  }
  const capabilities = toSandboxCapabilities(entry.capabilities);
  const context: HandleContext = { ab, options, capabilities };

  return {
    name: PROVIDER_NAME,
    backend: entry.name,
    client: ab,
    capabilities: () => ({ ...capabilities }),
    create: async (input) => createHandle(context, await translated(() => ab.sandboxes.ensure(toEnsureBody(options, input)))),
    resume: async ({ id }) => {
      try {
        return createHandle(context, await ab.sandboxes.get(id));
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    },
    destroy: ({ id }) => destroySandbox(ab, id),
  };
}
