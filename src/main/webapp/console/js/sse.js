// Server-sent events over fetch: EventSource cannot send Authorization, so the console reads the
// stream itself. The parser follows the HTML standard's event-stream rules (any line ending,
// comments, multi-line data, a persistent last event id).

export class SseParser {
  constructor() {
    this.buffer = "";
    this.data = [];
    this.event = "";
    this.lastId = "";
    this.first = true;
    this.skipNewline = false;
  }

  /** Feeds decoded text; returns the events it completed, each {id, event, data}. */
  feed(text) {
    if (this.first && text) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    // A \r that ended the last piece ended its line; a \n opening this one is its other half.
    if (this.skipNewline && text.startsWith("\n")) text = text.slice(1);
    this.skipNewline = false;
    this.buffer += text;
    const events = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buffer);
      if (!m) break;
      const line = this.buffer.slice(0, m.index);
      this.buffer = this.buffer.slice(m.index + m[0].length);
      if (m[0] === "\r" && this.buffer === "") this.skipNewline = true;
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  line(line) {
    if (line === "") {
      const event = this.data.length
        ? { id: this.lastId, event: this.event || "message", data: this.data.join("\n") }
        : null;
      this.data = [];
      this.event = "";
      return event;
    }
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.event = value;
    else if (field === "id" && !value.includes("\0")) this.lastId = value;
    return null;
  }
}

const TERMINAL_EVENTS = new Set(["RUN_FINISHED", "RUN_ERROR"]);

/**
 * Follows a run's events until its terminal event, reconnecting after a dropped connection with
 * `Last-Event-ID` set to the last id seen, so the server resumes right after it: no gap, no
 * duplicate (an id seen twice is dropped all the same). `open(headers, signal)` makes the request
 * and throws a Problem for an error answer, which ends the stream unless it is temporary.
 */
export async function follow(open, { onEvent, onState, signal }) {
  let lastId = null;
  const seen = new Set();
  let failures = 0;
  while (!signal.aborted) {
    try {
      const headers = { Accept: "text/event-stream" };
      if (lastId !== null) headers["Last-Event-ID"] = lastId;
      const res = await open(headers, signal);
      onState(lastId === null ? "open" : "resumed", lastId);
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      const parser = new SseParser();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const ev of parser.feed(value)) {
          failures = 0;
          if (ev.id) {
            if (seen.has(ev.id)) continue;
            seen.add(ev.id);
            lastId = ev.id;
          }
          onEvent(ev);
          if (TERMINAL_EVENTS.has(ev.event)) {
            reader.cancel().catch(() => {});
            onState("ended");
            return;
          }
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      const status = error?.status;
      if (status && status !== 429 && status !== 503 && status < 500) {
        onState("failed", error);
        return;
      }
    }
    if (signal.aborted) return;
    failures++;
    onState("reconnecting", lastId);
    await sleep(Math.min(500 * 2 ** Math.min(failures - 1, 4), 5000), signal);
  }
}

export function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
