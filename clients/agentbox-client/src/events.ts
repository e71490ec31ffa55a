import { AgentboxProblem } from "./problem.js";
import { parseSse } from "./sse.js";

/** One event of a run's stream: `id` is its offset (opaque), `type` the AG-UI chunk type, `data` the chunk. */
export interface RunEvent {
  id: string;
  type: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
}

/** How a dropped event stream is taken up again. */
export interface ReconnectOptions {
  /** Reconnections in a row without a new event before the iterator gives up (default 5). */
  maxAttempts?: number;
  /** The wait before the first reconnection; the n-th waits n times as long (default 250 ms). */
  delayMs?: number;
}

/** Thrown when a stream keeps ending before its terminal chunk and the attempts are spent. */
export class StreamInterruptedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StreamInterruptedError";
  }
}

const TERMINAL = new Set(["RUN_FINISHED", "RUN_ERROR"]);

/**
 * Opens the stream once: resolves the 2xx response (the transport throws the problem
 * otherwise). `lastEventId` is the last id yielded so far, undefined before the first.
 */
export type OpenStream = (lastEventId: string | undefined, signal: AbortSignal) => Promise<Response>;

/**
 * A run's events, resumed across dropped connections.
 *
 * Guarantees, whatever the network does:
 * - each id is yielded at most once and ids come out strictly increasing: after a reconnection
 *   the server resumes after the last yielded id (`Last-Event-ID`), and anything it repeats
 *   (an agent stream's `N.1`, `N.2` events, which a resume before `N` sends again) is dropped;
 * - the iterator ends after `RUN_FINISHED` or `RUN_ERROR`, and never before one unless the
 *   caller aborts or breaks (both close the connection: nothing keeps reading in the
 *   background);
 * - a connection that fails (network error, `502`/`503`/`504`, or a body that ends before the
 *   terminal chunk) is opened again after `delayMs × attempt`, at most `maxAttempts` times in a
 *   row; an attempt that yields something resets the count. Other problems (`404`, `400`, …)
 *   are thrown at once: they would not go away by asking again.
 */
export async function* resumableEvents(
  open: OpenStream,
  options: { after?: string; signal?: AbortSignal; reconnect?: ReconnectOptions } = {},
): AsyncGenerator<RunEvent, void, undefined> {
  const maxAttempts = options.reconnect?.maxAttempts ?? 5;
  const delayMs = options.reconnect?.delayMs ?? 250;
  const outer = options.signal;
  let last = options.after;
  let attempt = 0;
  while (true) {
    if (outer?.aborted) return;
    // One controller per connection, so a break or an abort closes exactly this one.
    const connection = new AbortController();
    const onAbort = () => connection.abort(outer?.reason);
    outer?.addEventListener("abort", onAbort, { once: true });
    let failure: unknown;
    try {
      const response = await open(last, connection.signal);
      if (!response.body) throw new StreamInterruptedError("the event stream has no body");
      for await (const sse of parseSse(response.body)) {
        if (sse.id !== undefined && last !== undefined && compareEventIds(sse.id, last) <= 0) continue;
        const event = toRunEvent(sse.id ?? last ?? "", sse.event, sse.data);
        if (sse.id !== undefined) last = sse.id;
        attempt = 0;
        yield event;
        if (TERMINAL.has(event.type)) return;
      }
    } catch (error) {
      if (outer?.aborted) return;
      if (!isRetryable(error)) throw error;
      failure = error;
    } finally {
      outer?.removeEventListener("abort", onAbort);
      connection.abort();
    }
    attempt++;
    if (attempt > maxAttempts) {
      throw new StreamInterruptedError(
        `the event stream ended before its terminal chunk ${maxAttempts + 1} times in a row` +
          (last !== undefined ? ` (last id ${last})` : ""),
        { cause: failure },
      );
    }
    if (!(await sleep(delayMs * attempt, outer))) return;
  }
}

/**
 * Orders two event ids: offsets `N`, and the added events of an agent stream `N.k`, which sit
 * after `N` and before `N+1`. Ids of another shape compare as strings (equal ids are equal).
 */
export function compareEventIds(a: string, b: string): number {
  const pa = /^(\d+)(?:\.(\d+))?$/.exec(a);
  const pb = /^(\d+)(?:\.(\d+))?$/.exec(b);
  if (!pa || !pb) return a === b ? 0 : a < b ? -1 : 1;
  return compareDigits(pa[1], pb[1]) || compareDigits(pa[2] ?? "0", pb[2] ?? "0");
}

function compareDigits(a: string, b: string): number {
  a = a.replace(/^0+(?=\d)/, "");
  b = b.replace(/^0+(?=\d)/, "");
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a === b ? 0 : a < b ? -1 : 1;
}

function toRunEvent(id: string, event: string | undefined, data: string): RunEvent {
  let chunk: unknown = data;
  try {
    chunk = JSON.parse(data);
  } catch {
    // not JSON: handed over as the text it is
  }
  const chunkType =
    chunk !== null && typeof chunk === "object" && typeof (chunk as { type?: unknown }).type === "string"
      ? (chunk as { type: string }).type
      : undefined;
  return { id, type: event ?? chunkType ?? "message", data: chunk };
}

function isRetryable(error: unknown): boolean {
  if (error instanceof AgentboxProblem) return error.status === 502 || error.status === 503 || error.status === 504;
  if (error instanceof StreamInterruptedError) return true;
  // fetch's network failure is a TypeError; a body cut off surfaces as a TypeError or a
  // DOMException/Error from the stream (undici: "terminated", "other side closed")
  return error instanceof Error && error.name !== "AbortError" && !(error instanceof SyntaxError);
}

/** Waits `ms`; answers false when `signal` aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
