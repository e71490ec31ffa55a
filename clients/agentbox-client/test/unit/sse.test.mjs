import { test } from "node:test";
import assert from "node:assert/strict";
import { parseSse } from "../../dist/sse.js";
import { LineSplitter } from "../../dist/sse.js";

/** A byte stream made of the given pieces, each a separate chunk. */
function streamOf(...pieces) {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(typeof piece === "string" ? encoder.encode(piece) : piece);
      controller.close();
    },
  });
}

async function collect(stream) {
  const out = [];
  for await (const event of parseSse(stream)) out.push(event);
  return out;
}

test("events carry their id, event name and data", async () => {
  const events = await collect(streamOf("id: 1\nevent: RUN_STARTED\ndata: {\"a\":1}\n\n"));
  assert.deepEqual(events, [{ id: "1", event: "RUN_STARTED", data: '{"a":1}' }]);
});

test("CRLF, LF and CR line ends all end lines, also split across chunks", async () => {
  const events = await collect(streamOf("data: a\r", "\n\r", "\ndata: b\rdata: c\r\r", "data: d\n\n"));
  assert.deepEqual(events.map((e) => e.data), ["a", "b\nc", "d"]);
});

test("a CR at a chunk's end followed by LF is one line end, not an empty line", async () => {
  const events = await collect(streamOf("data: x\r", "\ndata: y\r\n\r\n"));
  assert.deepEqual(events.map((e) => e.data), ["x\ny"]);
});

test("multi-line data is joined with newlines", async () => {
  const events = await collect(streamOf("data: one\ndata: two\ndata:\ndata:three\n\n"));
  assert.deepEqual(events.map((e) => e.data), ["one\ntwo\n\nthree"]);
});

test("comments, retry and unknown fields are ignored", async () => {
  const events = await collect(streamOf(": heartbeat\n\n:watching\nretry: 10\nfoo: bar\ndata: x\n\n"));
  assert.deepEqual(events, [{ data: "x" }]);
});

test("a block without data dispatches nothing", async () => {
  const events = await collect(streamOf("id: 5\nevent: x\n\ndata: y\n\n"));
  assert.deepEqual(events, [{ data: "y" }]);
});

test("only one leading space of a value is removed; a field without a colon has an empty value", async () => {
  const events = await collect(streamOf("data:  two spaces\ndata\n\n"));
  assert.deepEqual(events.map((e) => e.data), [" two spaces\n"]);
});

test("an event cut off by the end of the stream is dropped", async () => {
  const events = await collect(streamOf("id: 1\ndata: whole\n\nid: 2\ndata: half"));
  assert.deepEqual(events, [{ id: "1", data: "whole" }]);
});

test("an id holding NUL is ignored", async () => {
  const events = await collect(streamOf("id: a\u0000b\ndata: x\n\n"));
  assert.deepEqual(events, [{ data: "x" }]);
});

test("a leading BOM is stripped and multi-byte characters split across chunks decode whole", async () => {
  const bytes = new TextEncoder().encode("\ufeffdata: héllo €\n\n");
  const pieces = Array.from(bytes, (b) => new Uint8Array([b]));
  const events = await collect(streamOf(...pieces));
  assert.deepEqual(events, [{ data: "héllo €" }]);
});

test("breaking out of the loop cancels the stream", async () => {
  let cancelled = false;
  const stream = new ReadableStream({
    pull(controller) {
      controller.enqueue(new TextEncoder().encode("data: tick\n\n"));
    },
    cancel() {
      cancelled = true;
    },
  });
  for await (const event of parseSse(stream)) {
    assert.equal(event.data, "tick");
    break;
  }
  assert.equal(cancelled, true);
});

test("the line splitter keeps a partial line until its end arrives", () => {
  const lines = new LineSplitter();
  assert.deepEqual(lines.push("ab"), []);
  assert.deepEqual(lines.push("c\nd"), ["abc"]);
  assert.deepEqual(lines.push("\r"), ["d"]);
  assert.deepEqual(lines.push("\n"), []);
  assert.deepEqual(lines.push("\n"), [""]);
});
