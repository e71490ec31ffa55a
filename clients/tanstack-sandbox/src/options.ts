import type { Lifecycle, Policy, Workspace, WorkspaceSource } from "agentbox-client";

/**
 * How {@link agentboxSandbox} reaches agentbox and what every sandbox it makes is ensured with.
 *
 * Everything but `baseUrl`/`token`/`fetch`/`headers` goes into the ensure body of
 * `POST /sandboxes`, and so into the sandbox's key: two providers with different options never
 * share a sandbox.
 */
export interface AgentboxSandboxOptions {
  /** The agentbox server, without `/api/v1` (e.g. `http://localhost:9080`). */
  baseUrl: string;
  /** The tenant's bearer token; omit only against a server in development mode. */
  token?: string;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
  /** Headers sent with every request besides `Authorization`. */
  headers?: Record<string, string>;

  /** agentbox's own sandbox provider (`docker`, `local`); the server's default when absent. */
  provider?: string;
  /** An image on the server's allowlist; the server's default when absent. */
  image?: string;
  /** The definition the sandboxes serve (part of the key); the server's `default` when absent. */
  definitionId?: string;
  /**
   * agentbox's own workspace, prepared by the server when it creates a sandbox, before the
   * TanStack workspace's `setup` runs: a `source` (used when the TanStack workspace brings none),
   * `setup` steps, `env` for every command, and `secrets`.
   */
  workspace?: Workspace;
  /** Network (`none`, `bridge`, `egress` with `egress.allow`/`deny`), limits, published ports. */
  policy?: Policy;
  /** `snapshot: "after-setup"` and `keepAliveMs`; `reuse` is decided per create (see README). */
  lifecycle?: Omit<Lifecycle, "reuse">;
  /** The deadline of every `exec`, in ms; the server's default (10 min) when absent. */
  execTimeoutMs?: number;
  /**
   * What `handle.env.set(vars)` sets: `"secrets"` (the default: never stored by agentbox,
   * kept until the sandbox is next re-ensured — TanStack sets workspace secrets through it)
   * or `"env"` (recorded with the sandbox and kept for its life).
   */
  envSetAs?: "secrets" | "env";
}

export type { Lifecycle, Policy, Workspace, WorkspaceSource };
