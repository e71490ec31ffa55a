import { createExecBackedGit } from "@tanstack/ai-sandbox";
import type {
  ExecResult,
  ProcessOptions,
  SandboxChannel,
  SandboxFs,
  SandboxGit,
  SandboxHandle,
  SandboxProcess,
  SnapshotRef,
} from "@tanstack/ai-sandbox";
import type { AgentboxClient, SandboxView } from "agentbox-client";
import type { AgentboxSandboxCapabilities } from "./capabilities.js";
import { PROVIDER_NAME, SandboxCommandError, isNotFound, requireCapability, translated } from "./errors.js";
import type { AgentboxSandboxOptions } from "./options.js";
import { spawnProcess } from "./spawn.js";
import { watchFileEvents } from "./watch.js";

/** What every handle of one provider shares. */
export interface HandleContext {
  readonly ab: AgentboxClient;
  readonly options: AgentboxSandboxOptions;
  /** The provider's capabilities, as `GET /providers` reported them. */
  readonly capabilities: AgentboxSandboxCapabilities;
}

/** Metadata as `SandboxFs.lstat` of newer TanStack contracts returns it. */
export type SandboxFsStat =
  | { type: "file"; mode: number; size: number }
  | { type: "dir"; mode: number }
  | { type: "symlink"; mode: number }
  | { type: "other"; mode: number };

/** The TanStack handle of one agentbox sandbox; `id` is its agentbox key. */
export interface AgentboxSandboxHandle extends SandboxHandle {
  readonly capabilities: AgentboxSandboxCapabilities;
  readonly fs: SandboxFs & {
    /** The path's own metadata (a symlink is not followed); `undefined` only when it is missing. */
    lstat: (path: string) => Promise<SandboxFsStat | undefined>;
    watch: NonNullable<SandboxFs["watch"]>;
  };
  /** The sandbox as agentbox answered the ensure, fork or get that made this handle. */
  readonly sandbox: SandboxView;
  snapshot: (label?: string) => Promise<SnapshotRef>;
  fork: () => Promise<AgentboxSandboxHandle>;
}

/**
 * The TanStack handle of the agentbox sandbox `sandbox.key`. Every operation is one API call
 * (or one stream) under that key; the handle holds no state of its own, so any number of handles
 * of one key — in this process or others — see the same sandbox.
 */
export function createHandle(context: HandleContext, sandbox: SandboxView): AgentboxSandboxHandle {
  const { ab, options, capabilities } = context;
  const key = sandbox.key;
  const root = sandbox.workspaceRoot;

  const process: SandboxProcess = {
    exec: (command: string, opts: ProcessOptions = {}): Promise<ExecResult> =>
      translated(() =>
        ab.sandboxes.exec(
          key,
          { command, cwd: opts.cwd, env: opts.env, timeoutMs: options.execTimeoutMs },
          { signal: opts.signal },
        ),
      ),
    spawn: (command, opts) => spawnProcess(ab, key, capabilities, command, opts),
  };

  const fs: AgentboxSandboxHandle["fs"] = {
    read: (path) => translated(() => ab.sandboxes.files.readText(key, path)),
    readBytes: (path) => translated(() => ab.sandboxes.files.read(key, path)),
    write: (path, data) => translated(() => ab.sandboxes.files.write(key, path, data)),
    list: async (path) =>
      (await translated(() => ab.sandboxes.files.list(key, path))).map(({ name, path, type }) => ({ name, path, type })),
    mkdir: (path) => translated(() => ab.sandboxes.files.mkdir(key, path)),
    remove: (path) => translated(() => ab.sandboxes.files.remove(key, path)),
    rename: (from, to) => translated(() => ab.sandboxes.files.move(key, from, to)),
    exists: async (path) => (await lstat(path)) !== undefined,
    lstat: (path) => lstat(path),
    watch: (path, onEvent) =>
      watchFileEvents(
        {
          url: `${options.baseUrl.replace(/\/+$/, "")}/api/v1/sandboxes/${encodeURIComponent(key)}/file-events`,
          headers: authHeaders(options),
          fetch: options.fetch ?? globalThis.fetch,
        },
        path,
        onEvent,
      ),
  };

  async function lstat(path: string): Promise<SandboxFsStat | undefined> {
    try {
      const stat = await ab.sandboxes.files.stat(key, path);
      return stat.type === "file" ? { type: "file", mode: stat.mode, size: stat.size ?? 0 } : { type: stat.type, mode: stat.mode };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  const git = agentboxGit(ab, key, process, root);

  const handle: AgentboxSandboxHandle = {
    id: key,
    provider: PROVIDER_NAME,
    workspaceRoot: root,
    capabilities,
    sandbox,
    fs,
    git,
    process,
    ports: {
      connect: async (port: number): Promise<SandboxChannel> => {
        requireCapability(capabilities.ports, "ports");
        const access = await translated(() => ab.sandboxes.port(key, port));
        if (!access.proxied) return { url: access.url, headers: { ...access.headers } };
        // agentbox's proxy takes the caller's own bearer token (and never forwards it to the sandbox)
        return {
          url: access.url,
          headers: { ...access.headers, ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}) },
          ...(options.token ? { token: options.token } : {}),
        };
      },
    },
    env: {
      set: async (vars) => {
        requireCapability(capabilities.env, "env");
        if (Object.keys(vars).length === 0) return;
        const patch = (options.envSetAs ?? "secrets") === "env" ? { env: vars } : { secrets: vars };
        await translated(() => ab.sandboxes.env(key, patch));
      },
    },
    snapshot: async (label?: string): Promise<SnapshotRef> => {
      requireCapability(capabilities.snapshots, "snapshots");
      const { snapshotId } = await translated(() => ab.sandboxes.snapshot(key));
      return label === undefined ? { id: snapshotId } : { id: snapshotId, label };
    },
    fork: async () => {
      requireCapability(capabilities.fork, "fork");
      return createHandle(context, await translated(() => ab.sandboxes.fork(key)));
    },
    destroy: () => destroySandbox(ab, key),
  };
  return handle;
}

/**
 * TanStack's exec-backed git, with two changes: a git command that fails rejects (with
 * {@link SandboxCommandError}) instead of passing silently, and `pull`/`push` are agentbox's own
 * (fast-forward-only pull, push that sets the upstream, credentials from the sandbox's
 * `GIT_TOKEN` secret, failures as `409 git-failed` with a `reason`).
 */
function agentboxGit(ab: AgentboxClient, key: string, process: SandboxProcess, root: string): SandboxGit {
  const checked: SandboxProcess = {
    exec: async (command, opts) => {
      const result = await process.exec(command, opts);
      if (result.exitCode !== 0) throw new SandboxCommandError(result.exitCode, result.stdout, result.stderr);
      return result;
    },
    spawn: process.spawn,
  };
  const git = createExecBackedGit(checked, root);
  return {
    ...git,
    pull: async (dir) => {
      await ab.sandboxes.git.pull(key, dir === undefined ? {} : { dir });
    },
    push: async (dir) => {
      await ab.sandboxes.git.push(key, dir === undefined ? {} : { dir });
    },
  };
}

/** Destroys the sandbox; one that is already gone counts as destroyed (TanStack tears down on every abort). */
export async function destroySandbox(ab: AgentboxClient, key: string): Promise<void> {
  try {
    await ab.sandboxes.delete(key);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

function authHeaders(options: AgentboxSandboxOptions): Record<string, string> {
  return { ...options.headers, ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}) };
}
