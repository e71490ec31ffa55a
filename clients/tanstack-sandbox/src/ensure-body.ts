import type { SandboxCreateInput, WorkspaceDefinition } from "@tanstack/ai-sandbox";
import type { SandboxEnsureRequest, Workspace, WorkspaceSource } from "agentbox-client";
import type { AgentboxSandboxOptions } from "./options.js";

/** agentbox's workspace root: where its own clone lands and relative paths resolve. */
export const AGENTBOX_WORKSPACE_ROOT = "/workspace";

type Secrets = NonNullable<Workspace["secrets"]>;

/**
 * The `POST /sandboxes` body for one `provider.create(input)`.
 *
 * - `input.id` (the compound key `defineSandbox` derives from thread, workspace, provider and
 *   tenant) becomes `threadId` with `lifecycle.reuse: "thread"`, so the same TanStack key ensures
 *   the same agentbox sandbox — from this process or another, with or without TanStack's store.
 *   Without an id every create is a new sandbox (`reuse: "none"`).
 * - A TanStack `git` source is cloned by agentbox itself (credentials from `auth` go in as the
 *   secrets `GIT_TOKEN`/`GIT_USERNAME`, never into the URL); `bootstrapWorkspace` then finds
 *   `.git` and skips its own clone. Only for the default root: agentbox clones into
 *   `/workspace`. A `local` source is agentbox's local source (a directory of the server's host).
 * - `input.env` (the resolved workspace secrets) becomes `workspace.secrets`: never stored by
 *   agentbox and not part of its key, as TanStack keeps them out of its own key.
 * - The TanStack workspace's `setup`, skills and instructions are NOT sent: `defineSandbox` runs
 *   them through `bootstrapWorkspace` on the handle, and sending them too would run them twice.
 *   `input.policy` (command rules for harness adapters) has no agentbox counterpart.
 */
export function toEnsureBody(options: AgentboxSandboxOptions, input: SandboxCreateInput = {}): SandboxEnsureRequest {
  const body: SandboxEnsureRequest = {};
  if (options.definitionId !== undefined) body.definitionId = options.definitionId;
  if (options.provider !== undefined) body.provider = options.provider;
  if (options.image !== undefined) body.image = options.image;
  if (input.id !== undefined) body.threadId = input.id;

  const workspace = toWorkspace(options.workspace, input.workspace, input.env);
  if (workspace !== undefined) body.workspace = workspace;
  if (options.policy !== undefined) body.policy = options.policy;
  body.lifecycle = { ...options.lifecycle, reuse: input.id !== undefined ? "thread" : "none" };
  return body;
}

function toWorkspace(
  own: Workspace | undefined,
  tanstack: WorkspaceDefinition | undefined,
  env: Record<string, string> | undefined,
): Workspace | undefined {
  const workspace: Workspace = { ...own };
  const secrets: Secrets = { ...own?.secrets };
  if (workspace.source === undefined && tanstack !== undefined) {
    const mapped = toSource(tanstack);
    if (mapped !== undefined) {
      workspace.source = mapped.source;
      Object.assign(secrets, mapped.secrets);
    }
  }
  Object.assign(secrets, env);
  if (Object.keys(secrets).length > 0) workspace.secrets = secrets;
  else delete workspace.secrets;
  return Object.keys(workspace).length > 0 ? workspace : undefined;
}

/** agentbox's source for a TanStack workspace source, when agentbox can land it itself. */
export function toSource(
  workspace: WorkspaceDefinition,
): { source: WorkspaceSource; secrets: Record<string, string> } | undefined {
  const source = workspace.source;
  const root = workspace.root ?? AGENTBOX_WORKSPACE_ROOT;
  if (source.type === "local") return { source: { type: "local", path: source.path }, secrets: {} };
  if (source.type !== "git" || root !== AGENTBOX_WORKSPACE_ROOT) return undefined;
  const mapped: WorkspaceSource = { type: "git", url: source.url };
  if (source.ref !== undefined) mapped.ref = source.ref;
  // TanStack clones shallow (depth 1) unless told otherwise; agentbox spells "full" as 0
  mapped.depth = source.depth === "full" ? 0 : (source.depth ?? 1);
  const secrets: Record<string, string> = {};
  if (source.auth !== undefined) {
    secrets.GIT_TOKEN = source.auth.token;
    if (source.auth.username !== undefined) secrets.GIT_USERNAME = source.auth.username;
  }
  return { source: mapped, secrets };
}
