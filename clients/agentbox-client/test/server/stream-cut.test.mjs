import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { clientA, removeAgent, removeRun, removeSandbox, serverEnv, unique } from "../helpers/server.mjs";

/**
 * A proxy in front of the server that cuts every event stream's connection after `cutBytes`
 * bytes of its body, for the first `cuts` streams: the socket is destroyed in the middle of
 * whatever event those bytes end in. Everything else passes through untouched.
 */
async function cuttingProxy({ cutBytes, cuts }) {
  const upstream = new URL(serverEnv().url);
  const streams = [];
  const server = http.createServer((req, res) => {
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
      (answer) => {
        const isStream = (answer.headers["content-type"] ?? "").startsWith("text/event-stream");
        res.writeHead(answer.statusCode, answer.headers);
        if (!isStream) return void answer.pipe(res);
        const stream = { lastEventId: req.headers["last-event-id"], method: req.method, bytes: 0, cut: false };
        streams.push(stream);
        const cutThis = streams.length <= cuts;
        answer.on("data", (chunk) => {
          if (stream.cut) return;
          if (cutThis && stream.bytes + chunk.length >= cutBytes) {
            const keep = cutBytes - stream.bytes;
            stream.bytes = cutBytes;
            stream.cut = true;
            res.write(chunk.subarray(0, keep), () => {
              res.socket?.destroy();
              forward.destroy();
            });
            return;
          }
          stream.bytes += chunk.length;
          res.write(chunk);
        });
        answer.on("end", () => { if (!stream.cut) res.end(); });
      },
    );
    forward.on("error", () => res.socket?.destroy());
    req.pipe(forward);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    streams,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

const COUNT = 200;
/** Prints `COUNT` numbered deltas, with short sleeps so the stream is cut while the run is live. */
const NUMBERED = `cat > /dev/null; for i in $(seq 1 ${COUNT}); do echo "{\\"delta\\":\\"<$i>\\"}"; if [ $((i % 10)) -eq 0 ]; then sleep 0.05; fi; done`;

const direct = clientA();
let proxy;
let key;
const runs = [];
let agentId;

before(async () => {
  key = (await direct.sandboxes.ensure({ lifecycle: { reuse: "none", keepAliveMs: 300_000 } })).key;
});

after(async () => {
  await proxy?.close();
  for (const runId of runs) await removeRun(direct, runId);
  if (agentId) await removeAgent(direct, agentId);
  await removeSandbox(direct, key);
});

/** The deltas `<1>`…`<COUNT>` in order, each once, and ids strictly increasing. */
function assertWhole(events) {
  const ids = events.map((e) => Number(e.id));
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i] > ids[i - 1], `ids increase: ${ids[i - 1]} then ${ids[i]}`);
  const deltas = events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.data.delta);
  assert.deepEqual(deltas, Array.from({ length: COUNT }, (_, i) => `<${i + 1}>`));
  assert.equal(events.at(-1).type, "RUN_FINISHED");
}

test("a run's event stream cut by a proxy in the middle, several times, resumes without loss or repetition", async () => {
  proxy = await cuttingProxy({ cutBytes: 5_000, cuts: 4 });
  const throughProxy = clientA({ baseUrl: proxy.url, reconnect: { maxAttempts: 5, delayMs: 50 } });
  const runId = unique("r-cut");
  runs.push(runId);
  await direct.runs.start({ runId, threadId: unique("t-cut"), sandbox: { key }, command: NUMBERED });
  const events = [];
  for await (const event of throughProxy.runs.events(runId)) events.push(event);
  assertWhole(events);
  assert.ok(proxy.streams.length >= 5, `the stream was opened again after each cut (${proxy.streams.length} opens)`);
  assert.ok(proxy.streams.slice(0, 4).every((s) => s.cut));
  for (const stream of proxy.streams.slice(1)) assert.ok(stream.lastEventId, "each resume names the last id seen");
  const log = await direct.runs.log(runId);
  assert.deepEqual(events.map((e) => e.id), log.map((l) => l.offset));
  assert.deepEqual(events.map((e) => e.data), log.map((l) => l.chunk));
  await proxy.close();
  proxy = undefined;
});

test("an agent run's stream cut by a proxy is resumed by posting the same run again", async () => {
  proxy = await cuttingProxy({ cutBytes: 3_000, cuts: 3 });
  const throughProxy = clientA({ baseUrl: proxy.url, reconnect: { maxAttempts: 5, delayMs: 50 } });
  agentId = unique("a-cut");
  await direct.agents.put(agentId, { sandbox: { lifecycle: { keepAliveMs: 60_000 } }, command: NUMBERED, destroyOnComplete: true });
  const runId = unique("r-agent-cut");
  runs.push(runId);
  const input = { threadId: unique("t-agent-cut"), runId, messages: [{ id: "u-1", role: "user", content: "count" }] };
  const events = [];
  for await (const event of throughProxy.agents.run(agentId, input)) events.push(event);
  assertWhole(events);
  assert.ok(proxy.streams.length >= 4);
  assert.ok(proxy.streams.every((s) => s.method === "POST"));
  assert.deepEqual(proxy.streams.map((s) => s.lastEventId !== undefined), [false, true, true, true]);
  const log = await direct.runs.log(runId);
  assert.deepEqual(events.map((e) => e.id), log.map((l) => l.offset));
  assert.deepEqual(events.map((e) => e.type), log.map((l) => l.chunk.type));
});
