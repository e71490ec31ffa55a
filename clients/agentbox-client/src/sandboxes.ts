import { AgentboxProblem } from "./problem.js";
import { nextCursor, seg, type Transport } from "./http.js";
import { parseSse } from "./sse.js";
import type {
  EnvPatch,
  ExecRequest,
  ExecResult,
  FileEntry,
  FileEvent,
  FileStat,
  GitStatus,
  Page,
  PortAccess,
  ProcessOutput,
  ProcessRequest,
  ProcessView,
  SandboxEnsureRequest,
  SandboxView,
  SnapshotView,
} from "./types.js";

/** A signal the server accepts: with or without `SIG`, any case. */
export type Signal = "TERM" | "INT" | "KILL" | "HUP" | "QUIT" | "USR1" | "USR2" | (string & {});

/** Sandbox files, `/sandboxes/{key}/files…`. Paths are relative to `/workspace` or absolute. */
export class SandboxFiles {
  constructor(private readonly http: Transport) {}

  /** The file's bytes (`404` when missing, `413 file-too-large` over the server's read limit). */
  async read(key: string, path: string, options: { signal?: AbortSignal } = {}): Promise<Uint8Array> {
    const response = await this.http.send("GET", `/sandboxes/${seg(key)}/files`, {
      query: { path },
      accept: "application/octet-stream",
      signal: options.signal,
    });
    return new Uint8Array(await response.arrayBuffer());
  }

  /** The file decoded as UTF-8. */
  async readText(key: string, path: string, options: { signal?: AbortSignal } = {}): Promise<string> {
    return new TextDecoder().decode(await this.read(key, path, options));
  }

  /** Replaces the file's content (a string is written as UTF-8); parent directories are made. */
  async write(key: string, path: string, data: string | Uint8Array): Promise<void> {
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    await this.http.empty("PUT", `/sandboxes/${seg(key)}/files`, {
      query: { path },
      body: bytes as BodyInit,
      contentType: "application/octet-stream",
    });
  }

  /** The entries of a directory (default the workspace root); symlinks are not followed. */
  list(key: string, path?: string): Promise<FileEntry[]> {
    return this.http.json("GET", `/sandboxes/${seg(key)}/files/list`, { query: { path } });
  }

  /** `type`, `mode` and (files only) `size`; `404` when missing. */
  stat(key: string, path: string): Promise<FileStat> {
    return this.http.json("GET", `/sandboxes/${seg(key)}/files/stat`, { query: { path } });
  }

  /** Makes a directory and its parents; quiet when it exists. */
  mkdir(key: string, path: string): Promise<void> {
    return this.http.empty("POST", `/sandboxes/${seg(key)}/files/mkdir`, { json: { path } });
  }

  /** Moves or renames; a missing source is `404`. */
  move(key: string, from: string, to: string): Promise<void> {
    return this.http.empty("POST", `/sandboxes/${seg(key)}/files/move`, { json: { from, to } });
  }

  /** Removes recursively; quiet when the path is missing. */
  remove(key: string, path: string): Promise<void> {
    return this.http.empty("DELETE", `/sandboxes/${seg(key)}/files`, { query: { path } });
  }
}

/**
 * Background processes. A process is known to the server that started it only: behind a
 * load balancer, talk to one server for a process's whole life.
 */
export class SandboxProcesses {
  constructor(private readonly http: Transport) {}

  /** Starts `command` in the background; its `pid` names it for stdin, signals and output. */
  start(key: string, request: ProcessRequest): Promise<ProcessView> {
    return this.http.json("POST", `/sandboxes/${seg(key)}/processes`, { json: request });
  }

  /**
   * Without `signal`: kills the process and all it started (TERM, then KILL after 1 s). With
   * one: sends just that signal to its process group (the process may trap it). `422` where
   * the provider lacks `killableProcesses`.
   */
  kill(key: string, pid: string, signal?: Signal): Promise<void> {
    return this.http.empty("DELETE", `/sandboxes/${seg(key)}/processes/${seg(pid)}`, { query: { signal } });
  }

  /**
   * Writes `text` to the process's stdin; `eof: true` closes stdin after it (an empty text
   * only closes it). `422 unsupported-capability` where the provider lacks `writableStdin`.
   */
  stdin(key: string, pid: string, text: string, options: { eof?: boolean } = {}): Promise<void> {
    return this.http.empty("POST", `/sandboxes/${seg(key)}/processes/${seg(pid)}/stdin`, {
      query: { eof: options.eof === undefined ? undefined : String(options.eof) },
      body: text,
      contentType: "text/plain; charset=utf-8",
    });
  }

  /**
   * The process's output as it comes: `stdout`/`stderr` text, then one `exit` carrying the
   * exit code, after which the iterator ends. A late subscriber first gets the newest
   * buffered output. Breaking out or aborting `signal` closes the connection.
   */
  async *output(key: string, pid: string, options: { signal?: AbortSignal } = {}): AsyncGenerator<ProcessOutput, void, undefined> {
    const response = await this.http.send("GET", `/sandboxes/${seg(key)}/processes/${seg(pid)}/output`, {
      accept: "text/event-stream",
      signal: options.signal,
    });
    if (!response.body) return;
    try {
      for await (const event of parseSse(response.body)) {
        if (event.event === "exit") {
          let exitCode = NaN;
          try {
            exitCode = Number(JSON.parse(event.data).exitCode);
          } catch {
            // an exit without a readable code stays NaN
          }
          yield { stream: "exit", data: event.data, exitCode };
          return;
        }
        if (event.event === "stdout" || event.event === "stderr") yield { stream: event.event, data: event.data };
      }
    } catch (error) {
      if (options.signal?.aborted) return;
      throw error;
    }
  }
}

/** Git in a sandbox's work tree; `dir` defaults to the workspace root. Failures are `409 git-failed` with `reason`. */
export class SandboxGit {
  constructor(private readonly http: Transport) {}

  status(key: string, options: { dir?: string } = {}): Promise<GitStatus> {
    return this.http.json("GET", `/sandboxes/${seg(key)}/git/status`, { query: { dir: options.dir } });
  }

  /** Fast-forwards the current branch to its upstream; answers the status after. */
  pull(key: string, options: { dir?: string } = {}): Promise<GitStatus> {
    return this.http.json("POST", `/sandboxes/${seg(key)}/git/pull`, dirBody(options));
  }

  /** Pushes the current branch (to `origin` under its name when it tracks nothing); the status after. */
  push(key: string, options: { dir?: string } = {}): Promise<GitStatus> {
    return this.http.json("POST", `/sandboxes/${seg(key)}/git/push`, dirBody(options));
  }
}

function dirBody(options: { dir?: string }) {
  return options.dir === undefined ? {} : { json: { dir: options.dir } };
}

/** Sandboxes: `/sandboxes…`. */
export class Sandboxes {
  readonly files: SandboxFiles;
  readonly processes: SandboxProcesses;
  readonly git: SandboxGit;

  constructor(private readonly http: Transport) {
    this.files = new SandboxFiles(http);
    this.processes = new SandboxProcesses(http);
    this.git = new SandboxGit(http);
  }

  /**
   * Resumes the running sandbox of this body's key, else restores its snapshot, else creates
   * it (`outcome` says which). The same body always names the same sandbox.
   */
  ensure(body: SandboxEnsureRequest = {}): Promise<SandboxView> {
    return this.http.json("POST", "/sandboxes", { json: body });
  }

  get(key: string): Promise<SandboxView> {
    return this.http.json("GET", `/sandboxes/${seg(key)}`);
  }

  /** Every sandbox of the tenant, oldest first, fetching page after page as the loop goes. */
  async *list(options: { pageSize?: number } = {}): AsyncGenerator<SandboxView, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.listPage({ limit: options.pageSize, cursor });
      yield* page.items;
      cursor = page.next;
    } while (cursor !== undefined);
  }

  /** One page of the tenant's sandboxes; `next` is the cursor of the following page. */
  async listPage(options: { limit?: number; cursor?: string } = {}): Promise<Page<SandboxView>> {
    const response = await this.http.send("GET", "/sandboxes", {
      query: { limit: options.limit, cursor: options.cursor },
      accept: "application/json",
    });
    return { items: (await response.json()) as SandboxView[], next: nextCursor(response) };
  }

  /** Destroys the sandbox and deletes its record; a second delete is `404`. */
  delete(key: string): Promise<void> {
    return this.http.empty("DELETE", `/sandboxes/${seg(key)}`);
  }

  /**
   * Runs a command to its end. A non-zero exit is data, not an error. A command that outlasts
   * 1.5 s is answered `200` at once and its result (or a late failure, as a problem document)
   * comes at the end of the body: such a failure is thrown as the problem all the same.
   */
  async exec(key: string, request: ExecRequest, options: { signal?: AbortSignal } = {}): Promise<ExecResult> {
    const result = await this.http.json<ExecResult & { code?: string; status?: number }>(
      "POST",
      `/sandboxes/${seg(key)}/exec`,
      { json: request, signal: options.signal },
    );
    if (typeof result?.exitCode !== "number") {
      throw new AgentboxProblem(typeof result?.status === "number" ? result.status : 500, (result ?? {}) as Record<string, unknown>);
    }
    return result;
  }

  /** Sets (a string) or removes (`null`) variables and secrets for every later command. */
  env(key: string, patch: EnvPatch): Promise<void> {
    return this.http.empty("PATCH", `/sandboxes/${seg(key)}/env`, { json: patch });
  }

  /** Snapshots the sandbox's current state (`422` without the `snapshots` capability). */
  snapshot(key: string): Promise<SnapshotView> {
    return this.http.json("POST", `/sandboxes/${seg(key)}/snapshots`);
  }

  /** A new sandbox from this one's current state (`422` without the `fork` capability). */
  fork(key: string): Promise<SandboxView> {
    return this.http.json("POST", `/sandboxes/${seg(key)}/fork`);
  }

  /**
   * Where a port of the sandbox is reached: its published URL (`proxied: false`) or agentbox's
   * proxy (`proxied: true`, which takes this client's bearer token). `422` for a sandbox with
   * network `none`.
   */
  port(key: string, port: number): Promise<PortAccess> {
    return this.http.json("GET", `/sandboxes/${seg(key)}/ports/${seg(port)}`);
  }

  /** The URL of {@link port}. */
  async portUrl(key: string, port: number): Promise<string> {
    return (await this.port(key, port)).url;
  }

  /**
   * Sends a request to a sandbox port through agentbox's proxy, with this client's token, and
   * answers the sandbox's own response whatever its status (the proxy's own refusals — `401`,
   * `404`, `422`, `502 port-unreachable`, `504 port-timeout` — are thrown as problems).
   */
  async fetchPort(key: string, port: number, path = "/", init: RequestInit = {}): Promise<Response> {
    return this.http.proxy(`/sandboxes/${seg(key)}/ports/${seg(port)}/proxy/${path.replace(/^\/+/, "")}`, init);
  }

  /**
   * Changes under the workspace as they happen. Breaking out or aborting `signal` closes the
   * connection. The stream has no ids to resume by: changes while it was closed are not told.
   */
  async *fileEvents(key: string, options: { signal?: AbortSignal } = {}): AsyncGenerator<FileEvent, void, undefined> {
    const response = await this.http.send("GET", `/sandboxes/${seg(key)}/file-events`, {
      accept: "text/event-stream",
      signal: options.signal,
    });
    if (!response.body) return;
    try {
      for await (const event of parseSse(response.body)) {
        const change = parseJson(event.data);
        if (change !== null && typeof change === "object") yield change as FileEvent;
      }
    } catch (error) {
      if (options.signal?.aborted) return;
      throw error;
    }
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
