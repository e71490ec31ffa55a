// The console's stream parser, its resuming reader, its metrics parser and its Link header
// reading, run in Node on the very modules the browser loads (src/main/webapp/console/js): edge
// cases a live server rarely produces (a \r\n split across reads, comments, multi-line data, a
// duplicate id, an error answer, a next page on another origin). Prints {"checks":[…]} and exits
// 0, or {"error"} and exits 1.
import assert from "node:assert/strict";
import { follow, SseParser } from "../../main/webapp/console/js/sse.js";
import { figures, parsePrometheus } from "../../main/webapp/console/js/metrics.js";
import { emit, fail } from "./script-io.mjs";

const checks = [];
async function check(name, fn) {
  try {
    await fn();
    checks.push(name);
  } catch (error) {
    fail(new Error(`${name}: ${error.stack ?? error}`));
  }
}

const STREAM =
  "\ufeff: a comment\r\nid: 1\r\nevent: RUN_STARTED\r\ndata: {\"a\":1}\r\n\r\n" +
  "id: 2\nevent: TEXT_MESSAGE_CONTENT\ndata: line one\ndata: line two\n\n" +
  "data\n\n" +
  "event: CUSTOM\rdata: no id\r\r";
const EXPECTED = [
  { id: "1", event: "RUN_STARTED", data: '{"a":1}' },
  { id: "2", event: "TEXT_MESSAGE_CONTENT", data: "line one\nline two" },
  { id: "2", event: "message", data: "" },
  { id: "2", event: "CUSTOM", data: "no id" },
];

await check("the parser reads every line ending, comments, multi-line data and a persistent id", () => {
  assert.deepEqual(new SseParser().feed(STREAM), EXPECTED);
});

await check("the parser gives the same events however the stream is split", () => {
  for (const size of [1, 2, 3, 5, 7, 13]) {
    const parser = new SseParser();
    const events = [];
    for (let i = 0; i < STREAM.length; i += size) events.push(...parser.feed(STREAM.slice(i, i + size)));
    assert.deepEqual(events, EXPECTED, `pieces of ${size}`);
  }
});

await check("a \\r\\n split between two pieces is one line end", () => {
  const parser = new SseParser();
  assert.deepEqual(parser.feed("data: x\r"), []);
  assert.deepEqual(parser.feed("\n\r\n"), [{ id: "", event: "message", data: "x" }]);
});

/** A fetch answer whose body sends `pieces`, then ends or fails. */
function answer(pieces, { failAtEnd = false } = {}) {
  const encoder = new TextEncoder();
  const queue = [...pieces];
  // Piece by piece as the reader pulls: an error raised at once would discard what was queued.
  const body = new ReadableStream({
    pull(controller) {
      if (queue.length) controller.enqueue(encoder.encode(queue.shift()));
      else if (failAtEnd) controller.error(new TypeError("network error"));
      else controller.close();
    },
  });
  return new Response(body, { status: 200 });
}
const sse = (id, type) => `id: ${id}\nevent: ${type}\ndata: {"type":"${type}"}\n\n`;

await check("follow resumes after a dropped connection with Last-Event-ID, without gap or duplicate", async () => {
  const requests = [];
  const connections = [
    () => answer([sse(1, "RUN_STARTED"), sse(2, "TEXT_MESSAGE_CONTENT"), "id: 3\nevent: TEXT_MES"], { failAtEnd: true }),
    () => answer([sse(2, "TEXT_MESSAGE_CONTENT"), sse(3, "TEXT_MESSAGE_CONTENT")]), // ends early, one id again
    () => answer([sse(4, "RUN_FINISHED"), sse(5, "CUSTOM")]),
  ];
  const seen = [];
  const states = [];
  await follow(
    async (headers) => {
      requests.push(headers["Last-Event-ID"] ?? null);
      return connections[requests.length - 1]();
    },
    { onEvent: (e) => seen.push(e.id), onState: (s) => states.push(s), signal: new AbortController().signal },
  );
  assert.deepEqual(requests, [null, "2", "3"]);
  assert.deepEqual(seen, ["1", "2", "3", "4"], "nothing after the terminal event, nothing twice");
  assert.equal(states.at(-1), "ended");
});

await check("follow stops on an error answer that will not change, such as 404", async () => {
  const states = [];
  let calls = 0;
  await follow(
    async () => {
      calls++;
      throw Object.assign(new Error("Not found"), { status: 404 });
    },
    { onEvent: () => {}, onState: (s) => states.push(s), signal: new AbortController().signal },
  );
  assert.equal(calls, 1);
  assert.deepEqual(states, ["failed"]);
});

await check("the metrics figures sum a metric's samples over their labels", () => {
  const text = [
    "# HELP agentbox_reaper_sweeps_total completed sweeps",
    "# TYPE agentbox_reaper_sweeps_total counter",
    'agentbox_reaper_sweeps_total{mp_scope="application",} 12.0',
    'agentbox_runs_takeovers_total{cause="session-gone",mp_scope="application",} 2.0',
    'agentbox_runs_takeovers_total{cause="lease-expired",mp_scope="application",} 1.0',
    "garbage line",
  ].join("\n");
  const sums = parsePrometheus(text);
  assert.equal(sums.get("agentbox_reaper_sweeps_total"), 12);
  assert.equal(sums.get("agentbox_runs_takeovers_total"), 3);
  const rows = Object.fromEntries(figures(text));
  assert.equal(rows["Reclaim failures (agentbox_reaper_reclaim_failed_total)"], 0);
});

await check("a Link header's rel=next target is followed only on this origin", async () => {
  // api.js reads the tab's sessionStorage and location; Node has neither.
  globalThis.sessionStorage = { getItem: () => null, setItem: () => {}, removeItem: () => {} };
  globalThis.location = { href: "http://console.test/console/", origin: "http://console.test" };
  const { nextLink } = await import("../../main/webapp/console/js/api.js");
  const answer = (link) => ({ url: "http://console.test/api/v1/runs?status=running", headers: new Headers(link ? { Link: link } : {}) });
  assert.equal(nextLink(answer(null)), null);
  assert.equal(nextLink(answer('</api/v1/runs?after=r-9>; rel="next"')), "/api/v1/runs?after=r-9");
  assert.equal(nextLink(answer('<?after=2>; rel=next')), "/api/v1/runs?after=2");
  assert.equal(nextLink(answer('</api/v1/runs?a=1>; rel="prev", <http://console.test/api/v1/runs?a=3>; rel="next"')), "/api/v1/runs?a=3");
  assert.equal(nextLink(answer('</api/v1/runs?a=1>; rel="prev"')), null);
  assert.equal(nextLink(answer('<https://elsewhere.test/steal>; rel="next"')), null);
});

emit({ checks });
