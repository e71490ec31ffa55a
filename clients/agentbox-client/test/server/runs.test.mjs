import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { clientA, drain, problemOf, removeRun, removeSandbox, settledRun, unique } from "../helpers/server.mjs";

const ab = clientA();
const runs = new Set();
let key;

before(async () => {
  key = (await ab.sandboxes.ensure({ lifecycle: { reuse: "none", keepAliveMs: 300_000 } })).key;
});

after(async () => {
  for (const runId of runs) await removeRun(ab, runId);
  await removeSandbox(ab, key);
});

/** Starts a `command` run in the shared sandbox under a fresh id. */
async function start(command, extra = {}) {
  const runId = unique("r-client");
  runs.add(runId);
  const threadId = extra.threadId ?? unique("t-client");
  const accepted = await ab.runs.start({ runId, threadId, sandbox: { key }, command, ...extra });
  return { runId, threadId, accepted };
}

test("a started run streams its events to RUN_FINISHED and its record reads completed", async () => {
  const { runId, threadId, accepted } = await start(`echo '{"delta":"hi "}'; echo '{"delta":"there"}'`);
  assert.deepEqual(accepted, { runId, threadId, status: "running", events: `/api/v1/runs/${runId}/events` });
  const events = await drain(ab.runs.events(runId));
  assert.equal(events[0].type, "RUN_STARTED");
  assert.equal(events.at(-1).type, "RUN_FINISHED");
  const text = events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.data.delta).join("");
  assert.equal(text, "hi there");
  const log = await ab.runs.log(runId);
  assert.deepEqual(events.map((e) => e.id), log.map((l) => l.offset));
  assert.deepEqual(events.map((e) => e.data), log.map((l) => l.chunk));
  const record = await settledRun(ab, runId);
  assert.equal(record.status, "completed");
  assert.equal(record.harness, "command");
  const page = await ab.runs.logPage(runId, { after: log[1].offset, limit: 2 });
  assert.deepEqual(page, log.slice(2, 4));
  const tail = await drain(ab.runs.events(runId, { after: log.at(-2).offset }));
  assert.deepEqual(tail.map((e) => e.type), ["RUN_FINISHED"]);
});

test("a failing command ends with RUN_ERROR agent-exit", async () => {
  const { runId } = await start("echo boom >&2; exit 7");
  const events = await drain(ab.runs.events(runId));
  assert.equal(events.at(-1).type, "RUN_ERROR");
  assert.equal(events.at(-1).data.code, "agent-exit");
  assert.equal((await settledRun(ab, runId)).error.code, "agent-exit");
});

test("a thread's active run is found while it runs; cancel ends it aborted", async () => {
  const threadId = unique("t-cancel");
  const { runId } = await start(`echo '{"delta":"working"}'; sleep 60`, { threadId, destroyOnComplete: false });
  const active = await ab.runs.activeRun(threadId);
  assert.equal(active?.runId, runId);
  const listed = [];
  for await (const run of ab.runs.list({ threadId })) listed.push(run.runId);
  assert.deepEqual(listed, [runId]);
  const controller = new AbortController();
  const iterator = ab.runs.events(runId, { signal: controller.signal });
  const first = await iterator.next();
  assert.equal(first.value.type, "RUN_STARTED");
  const cancelled = await ab.runs.cancel(runId);
  assert.equal(cancelled.runId, runId);
  const rest = [];
  for await (const event of iterator) rest.push(event);
  assert.equal(rest.at(-1).type, "RUN_ERROR");
  assert.equal(rest.at(-1).data.code, "aborted");
  assert.equal((await settledRun(ab, runId)).status, "aborted");
  assert.equal(await ab.runs.activeRun(threadId), undefined);
  // the cancel destroyed the run's sandbox: the next tests get a new one
  key = (await ab.sandboxes.ensure({ lifecycle: { reuse: "none", keepAliveMs: 300_000 } })).key;
});

test("runs list newest first and filter by status", async () => {
  const threadId = unique("t-list");
  const a = await start("true", { threadId });
  await drain(ab.runs.events(a.runId));
  const b = await start("true", { threadId });
  await drain(ab.runs.events(b.runId));
  await settledRun(ab, a.runId);
  await settledRun(ab, b.runId);
  const listed = [];
  for await (const run of ab.runs.list({ threadId, status: "completed", pageSize: 1 })) listed.push(run.runId);
  assert.deepEqual(listed, [b.runId, a.runId]);
  const none = [];
  for await (const run of ab.runs.list({ threadId, status: "failed" })) none.push(run);
  assert.deepEqual(none, []);
});

test("a run's own problems: an unknown run is 404, a reused runId 409, a durable run without runId 400", async () => {
  await problemOf(ab.runs.get(unique("r-missing")), 404, "not-found");
  const { runId, threadId } = await start("true");
  await problemOf(ab.runs.start({ runId, threadId, sandbox: { key }, command: "true" }), 409, "run-exists");
  const error = await problemOf(ab.runs.start({ threadId, sandbox: { key }, command: "true" }), 400, "run-id-required");
  assert.equal(error.field, "runId");
  await drain(ab.runs.events(runId));
});
