import { AgentboxProblem, parseSse } from "agentbox-client";

/** Where and how to open a sandbox's `file-events` stream. */
export interface FileEventSource {
  /** The absolute URL of `GET /api/v1/sandboxes/{key}/file-events`. */
  url: string;
  headers: Record<string, string>;
  fetch: typeof fetch;
}

/** How long to wait before reopening a stream that ended while the watch was still wanted. */
const REOPEN_DELAY_MS = 500;

/**
 * `SandboxFs.watch` over agentbox's file-events stream, so TanStack's `watchWorkspace` takes its
 * native path (server-side change events) instead of polling `find` every 700 ms through exec.
 *
 * The promise resolves only once the server answered the stream's request, that is once it
 * watches: a file written after `watch()` resolved is reported. (The client's `fileEvents`
 * iterator cannot tell when it is open, which is why the stream is opened here.)
 *
 * The stream has no ids to resume by. When it ends while the watch is still wanted (a server
 * restart), it is reopened; changes in between are not reported. A sandbox that is gone (404)
 * ends the watch.
 */
export async function watchFileEvents(
  source: FileEventSource,
  root: string,
  onEvent: (event: { type: string; path: string }) => void,
): Promise<{ stop: () => Promise<void> }> {
  const base = root.replace(/\/+$/, "");
  const under = (path: string) => base === "" || path === base || path.startsWith(`${base}/`);
  const stopping = new AbortController();

  const open = async (): Promise<ReadableStream<Uint8Array>> => {
    const response = await source.fetch(source.url, {
      headers: { ...source.headers, Accept: "text/event-stream" },
      signal: stopping.signal,
    });
    if (!response.ok) throw await AgentboxProblem.fromResponse(response);
    if (!response.body) throw new Error("file-events: the answer has no body");
    return response.body;
  };

  const relay = async (stream: ReadableStream<Uint8Array>): Promise<void> => {
    for await (const message of parseSse(stream)) {
      let change: unknown;
      try {
        change = JSON.parse(message.data);
      } catch {
        continue;
      }
      if (change === null || typeof change !== "object") continue;
      const { type, path } = change as { type?: unknown; path?: unknown };
      if (typeof type === "string" && typeof path === "string" && under(path)) onEvent({ type, path });
    }
  };

  const first = await open();
  const following = (async () => {
    let stream: ReadableStream<Uint8Array> | undefined = first;
    while (!stopping.signal.aborted) {
      try {
        stream ??= await open();
        await relay(stream);
      } catch (error) {
        if (stopping.signal.aborted) return;
        if (error instanceof AgentboxProblem && error.status === 404) return;
      }
      stream = undefined;
      await pause(REOPEN_DELAY_MS, stopping.signal);
    }
  })();

  return {
    stop: async () => {
      stopping.abort();
      await following;
    },
  };
}

/** Waits `ms`, or less when `signal` aborts first. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
