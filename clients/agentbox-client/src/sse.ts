/**
 * A server-sent events parser over a byte stream, as the HTML standard's event-stream
 * interpretation describes it, minus what a client library does not need (`retry:` is read
 * and ignored: reconnecting is the caller's decision, see `events.ts`).
 *
 * Invariants:
 * - Lines end with CRLF, LF or CR; a CR that ends one chunk and an LF that starts the next
 *   are one line end, never an empty line (which would dispatch an event too early).
 * - An event is dispatched only at a blank line and only when it has a `data` field: a block
 *   of comments or of `id:`/`event:` alone yields nothing.
 * - Whatever follows the last blank line when the stream ends is an incomplete event and is
 *   dropped: a connection cut in the middle of an event never yields half of it.
 * - `id` is the id field of the event's own block (not carried over to later events); an id
 *   holding NUL is ignored, as the standard says.
 */

/** One dispatched event: `data` is its data lines joined with `\n`. */
export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/**
 * Parses `stream` into events. Breaking out of the loop cancels the stream's reader, so the
 * connection under it is released.
 */
export async function* parseSse(stream: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent, void, undefined> {
  const reader = stream.getReader();
  const decoder = new TextDecoder("utf-8");
  const lines = new LineSplitter();
  const block = new EventBlock();
  let done = false;
  try {
    while (!done) {
      const chunk = await reader.read();
      done = chunk.done;
      const text = done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
      for (const line of lines.push(text)) {
        const event = block.line(line);
        if (event) yield event;
      }
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** Splits text pushed in arbitrary pieces into lines; strips a leading BOM. */
export class LineSplitter {
  private buffer = "";
  private pendingCr = false;
  private started = false;

  /** The complete lines `text` finishes, without their line ends. */
  push(text: string): string[] {
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const out: string[] = [];
    let i = 0;
    if (this.pendingCr && text.length > 0) {
      this.pendingCr = false;
      if (text[0] === "\n") i = 1; // the LF of a CRLF split across pieces
    }
    let start = i;
    for (; i < text.length; i++) {
      const c = text[i];
      if (c === "\n" || c === "\r") {
        out.push(this.buffer + text.slice(start, i));
        this.buffer = "";
        if (c === "\r") {
          if (i + 1 < text.length) {
            if (text[i + 1] === "\n") i++;
          } else {
            this.pendingCr = true;
          }
        }
        start = i + 1;
      }
    }
    this.buffer += text.slice(start);
    return out;
  }
}

/** Accumulates the fields of one event block. */
class EventBlock {
  private data: string[] = [];
  private hasData = false;
  private id: string | undefined;
  private event: string | undefined;

  /** Feeds one line; answers the event a blank line dispatches. */
  line(line: string): SseEvent | undefined {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return undefined; // a comment (heartbeats)
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "data":
        this.data.push(value);
        this.hasData = true;
        break;
      case "event":
        this.event = value;
        break;
      case "id":
        if (!value.includes("\u0000")) this.id = value;
        break;
      default: // `retry` and unknown fields are ignored
        break;
    }
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    const event: SseEvent | undefined = this.hasData ? { data: this.data.join("\n") } : undefined;
    if (event && this.id !== undefined) event.id = this.id;
    if (event && this.event !== undefined && this.event !== "") event.event = this.event;
    this.data = [];
    this.hasData = false;
    this.id = undefined;
    this.event = undefined;
    return event;
  }
}
