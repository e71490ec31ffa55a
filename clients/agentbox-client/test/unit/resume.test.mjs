import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { AgentboxClient, AgentboxProblem, StreamInterruptedError, compareEventIds } from "../../dist/index.js";

/**
 * A fake agentbox serving one run's events `1`…`count` (the last one RUN_FINISHED). `plan(n)`
 * says what the n-th connection does: `{cutAfterBytes}` destroys the socket after that many
 * body bytes (in the middle of an event), `{endAfterEvents}` ends the body cleanly early,
 * `{status}` answers a problem. Records each connection's Last-Event-ID.
 */
async function fakeServer({ count, plan = () => ({}), stall = false }) {
  const connections = [];
  const closed = [];
  const server = http.createServer((req, res) => {
    const n = connections.length;
    connections.push({ lastEventId: req.headers["last-event-id"], method: req.method, url: req.url });
    req.on("close", () => closed.push(n));
    const step = plan(n);
    if (step.status) {
      res.writeHead(step.status, { "Content-Type": "application/problem+json" });
      res.end(JSON.stringify({ status: step.status, code: step.code ?? "x", title: "x" }));
      return;
    }
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    const from = Number(req.headers["last-event-id"] ?? 0) + 1;
    let body = ": hello\n\n";
    let events = 0;
    for (let id = from; id <= count; id++) {
      if (step.endAfterEvents !== undefined && events === step.endAfterEvents) break;
      const type = id === count ? "RUN_FINISHED" : "TEXT_MESSAGE_CONTENT";
      body += `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify({ type, delta: `d${id}` })}\n\n`;
      events++;
      if (step.extra) body += step.extra(id);
    }
    if (stall) {
      res.write(body);
      return; // never ends: only an abort or a break ends this connection
    }
    if (step.cutAfterBytes !== undefined) {
      res.write(body.slice(0, step.cutAfterBytes), () => res.socket.destroy());
      return;
    }
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    connections,
    closed,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

async function drain(iterable) {
  const out = [];
  for await (const event of iterable) out.push(event);
  return out;
}

const fast = { maxAttempts: 3, delayMs: 5 };

test("a stream cut in the middle of an event resumes after the last whole event, without loss or repetition", async (t) => {
  const server = await fakeServer({ count: 20, plan: (n) => (n < 3 ? { cutAfterBytes: 300 } : {}) });
  t.after(server.close);
  const client = new AgentboxClient({ baseUrl: server.baseUrl, reconnect: fast });
  const events = await drain(client.runs.events("r-1"));
  assert.deepEqual(events.map((e) => e.id), Array.from({ length: 20 }, (_, i) => String(i + 1)));
  assert.deepEqual(events.map((e) => e.data.delta), Array.from({ length: 20 }, (_, i) => `d${i + 1}`));
  assert.equal(events.at(-1).type, "RUN_FINISHED");
  assert.ok(server.connections.length >= 4);
  assert.equal(server.connections[0].lastEventId, undefined);
  for (let i = 1; i < server.connections.length; i++) {
    assert.ok(Number(server.connections[i].lastEventId) > 0, "every reconnection names the last id yielded");
  }
});

test("a body that ends cleanly before the terminal chunk is resumed", async (t) => {
  const server = await fakeServer({ count: 6, plan: (n) => (n === 0 ? { endAfterEvents: 2 } : {}) });
  t.after(server.close);
  const client = new AgentboxClient({ baseUrl: server.baseUrl, reconnect: fast });
  const events = await drain(client.runs.events("r-1"));
  assert.deepEqual(events.map((e) => e.id), ["1", "2", "3", "4", "5", "6"]);
  assert.equal(server.connections[1].lastEventId, "2");
});

test("after and lastEventId start the stream after that id", async (t) => {
  const server = await fakeServer({ count: 5 });
  t.after(server.close);
  const client = new AgentboxClient({ baseUrl: server.baseUrl, reconnect: fast });
  const events = await drain(client.runs.events("r-1", { after: "3" }));
  assert.deepEqual(events.map((e) => e.id), ["4", "5"]);
  assert.equal(server.connections[0].lastEventId, "3");
});

test("the iterator stops after the terminal chunk and opens no further connection", async (t) => {
  const server = await fakeServer({ count: 3 });
  t.after(server.close);
  const client = new AgentboxClient({ baseUrl: server.baseUrl, reconnect: fast });
  await drain(client.runs.events("r-1"));
  assert.equal(server.connections.length, 1);
});

test("an agent stream resumed from an added event N.k drops the events it already yielded", async (t) => {
  // ids 1, 2, 2.1, 2.2, 3: a Last-Event-ID "2.1" resumes before chunk 2, so 2 and 2.1 come again
  const all = [["1", "X"], ["2", "CUSTOM"], ["2.1", "STATE_SNAPSHOT"], ["2.2", "MESSAGES_SNAPSHOT"], ["3", "RUN_FINISHED"]];
  const posts = [];
  const server = http.createServer((req, res) => {
    const last = req.headers["last-event-id"];
    posts.push({ method: req.method, last });
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    const from = last === undefined ? 0 : all.findIndex(([id]) => id === last.split(".")[0]);
    const events = posts.length === 1 ? all.slice(0, 3) : all.slice(from);
    res.end(events.map(([id, type]) => `id: ${id}\nevent: ${type}\ndata: {}\n\n`).join(""));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  const client = new AgentboxClient({ baseUrl: `http://127.0.0.1:${server.address().port}`, reconnect: fast });
  const ids = (await drain(client.agents.run("a", { threadId: "t", runId: "r", messages: [] }))).map((e) => e.id);
  assert.deepEqual(ids, ["1", "2", "2.1", "2.2", "3"]);
  assert.deepEqual(posts, [{ method: "POST", last: undefined }, { method: "POST", last: "2.1" }]);
});

test("a server that replays from an earlier id never makes the iterator repeat one", async (t) => {
  // resume ignores Last-Event-ID and sends everything again (a misbehaving proxy cache)
  let n = 0;
  const server = http.createServer((req, res) => {
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    const upTo = n++ === 0 ? 3 : 5;
    let body = "";
    for (let id = 1; id <= upTo; id++) {
      const type = id === 5 ? "RUN_FINISHED" : "X";
      body += `id: ${id}\nevent: ${type}\ndata: {}\n\n`;
    }
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  const client = new AgentboxClient({ baseUrl: `http://127.0.0.1:${server.address().port}`, reconnect: fast });
  const ids = (await drain(client.runs.events("r"))).map((e) => e.id);
  assert.deepEqual(ids, ["1", "2", "3", "4", "5"]);
});

test("reconnections are bounded: a stream that never reaches its end throws StreamInterruptedError", async (t) => {
  const server = await fakeServer({ count: 10, plan: () => ({ endAfterEvents: 0 }) });
  t.after(server.close);
  const client = new AgentboxClient({ baseUrl: server.baseUrl, reconnect: fast });
  await assert.rejects(drain(client.runs.events("r-1")), StreamInterruptedError);
  assert.equal(server.connections.length, fast.maxAttempts + 1);
});

test("a 404 is thrown at once, a 503 is retried", async (t) => {
  const missing = await fakeServer({ count: 2, plan: () => ({ status: 404, code: "not-found" }) });
  t.after(missing.close);
  const client = new AgentboxClient({ baseUrl: missing.baseUrl, reconnect: fast });
  await assert.rejects(drain(client.runs.events("r-1")), (e) => e instanceof AgentboxProblem && e.code === "not-found");
  assert.equal(missing.connections.length, 1);

  const flaky = await fakeServer({ count: 2, plan: (n) => (n === 0 ? { status: 503, code: "provider-unavailable" } : {}) });
  t.after(flaky.close);
  const again = new AgentboxClient({ baseUrl: flaky.baseUrl, reconnect: fast });
  assert.deepEqual((await drain(again.runs.events("r-1"))).map((e) => e.id), ["1", "2"]);
});

test("aborting the signal ends the iterator cleanly and closes the connection", async (t) => {
  const server = await fakeServer({ count: 100, stall: true });
  t.after(server.close);
  const client = new AgentboxClient({ baseUrl: server.baseUrl, reconnect: fast });
  const controller = new AbortController();
  const seen = [];
  for await (const event of client.runs.events("r-1", { signal: controller.signal })) {
    seen.push(event.id);
    if (seen.length === 3) controller.abort();
  }
  assert.ok(seen.length >= 3);
  await waitFor(() => server.closed.length === 1);
  assert.equal(server.connections.length, 1);
});

test("breaking out of the loop closes the connection", async (t) => {
  const server = await fakeServer({ count: 100, stall: true });
  t.after(server.close);
  const client = new AgentboxClient({ baseUrl: server.baseUrl, reconnect: fast });
  for await (const event of client.runs.events("r-1")) {
    if (event.id === "2") break;
  }
  await waitFor(() => server.closed.length === 1);
});

test("event ids order offsets numerically and N.k between N and N+1", () => {
  assert.ok(compareEventIds("9", "10") < 0);
  assert.ok(compareEventIds("10", "10.1") < 0);
  assert.ok(compareEventIds("10.2", "10.10") < 0);
  assert.ok(compareEventIds("10.9", "11") < 0);
  assert.equal(compareEventIds("007", "7"), 0);
  assert.ok(compareEventIds("123456789012345678901", "99") > 0);
});

async function waitFor(condition, ms = 2000) {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
