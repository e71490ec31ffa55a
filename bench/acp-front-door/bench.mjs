#!/usr/bin/env node
// The ACP front door's costs (see README.md here):
//  1. `agentbox-acp` start-up: spawn → its `initialize` answer, beside a bare `node` answering
//     one line (what any Node command costs on this machine);
//  2. an editor prompt's first `session/update` through the front door against the same kind of
//     run's first text chunk read directly from the agent endpoint's SSE (`agents.run`), in
//     interleaved iterations: (a) a thread's later turns (the sandbox exists; the front door
//     checks the thread's live run first), (b) a new thread's first turn (the sandbox is made;
//     a fresh session needs no check).
// Usage (from the repository root, after `npm ci` and `npm run build`):
//   AGENTBOX_URL=http://localhost:9080 AGENTBOX_TOKEN=… node bench/acp-front-door/bench.mjs [iterations]
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { dirname, join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk";
import { AgentboxClient } from "agentbox-client";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const CLI = join(root, "clients", "agentbox-acp", "dist", "cli.js");
const baseUrl = process.env.AGENTBOX_URL;
const token = process.env.AGENTBOX_TOKEN;
if (!baseUrl) throw new Error("AGENTBOX_URL is required");
const iterations = Number(process.argv[2] ?? 15);
const ab = new AgentboxClient({ baseUrl, token });
const env = { ...process.env, AGENTBOX_URL: baseUrl, ...(token ? { AGENTBOX_TOKEN: token } : {}) };

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (xs) => `median ${median(xs).toFixed(1)} ms (min ${Math.min(...xs).toFixed(1)}, max ${Math.max(...xs).toFixed(1)}, n=${xs.length})`;

/** Spawns `args`, writes one line, and times the first line back. */
async function firstAnswer(args) {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ["pipe", "pipe", "inherit"] });
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } }) + "\n");
  await new Promise((resolve) => child.stdout.once("data", resolve));
  const ms = performance.now() - t0;
  child.stdin.end();
  await new Promise((resolve) => child.on("exit", resolve));
  return ms;
}

async function startup(n = 20) {
  const bare = ["-e", "process.stdin.once('data', () => process.stdout.write('{}\\n'))"];
  const front = [CLI, "--agent", "bench-startup"];
  const fd = [];
  const node = [];
  await firstAnswer(front); // warm the file cache
  for (let i = 0; i < n; i++) {
    fd.push(await firstAnswer(front));
    node.push(await firstAnswer(bare));
  }
  return { fd, node };
}

/** Deletes the sandboxes the runs of these threads used. */
async function deleteSandboxes(threadIds) {
  const keys = new Set();
  for (const threadId of threadIds) for await (const run of ab.runs.list({ threadId })) if (run.sandboxKey) keys.add(run.sandboxKey);
  for (const key of keys) await ab.sandboxes.delete(key).catch(() => {});
}

async function latency() {
  const agentId = `bench-acp-${randomUUID().slice(0, 8)}`;
  await ab.agents.put(agentId, {
    sandbox: { definitionId: agentId, policy: { network: "none" } },
    harness: "command",
    command: `echo '{"delta":"hi"}'`,
  });
  const threads = [];
  const child = spawn(process.execPath, [CLI, "--agent", agentId], { env, stdio: ["pipe", "pipe", "inherit"] });
  let onUpdate = () => {};
  const connection = acp
    .client({ name: "bench" })
    .onNotification(acp.methods.client.session.update, ({ params }) => onUpdate(params))
    .connect(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));
  const editor = connection.agent;
  await editor.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
  const newSession = async () => {
    const { sessionId } = await editor.request(acp.methods.agent.session.new, { cwd: "/tmp", mcpServers: [] });
    threads.push(sessionId);
    return sessionId;
  };

  /** Prompt → first session/update, then the turn's end. */
  async function viaFrontDoor(sessionId) {
    const got = new Promise((resolve) => (onUpdate = (p) => p.sessionId === sessionId && resolve()));
    const t0 = performance.now();
    const answer = editor.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] });
    await Promise.race([got, answer]); // a failed turn rejects instead of waiting for an update
    const first = performance.now() - t0;
    await answer;
    return first;
  }
  /** POST /agents/{id} → first TEXT_MESSAGE_CONTENT, then the stream's end. */
  async function direct(threadId) {
    const t0 = performance.now();
    let first;
    for await (const event of ab.agents.run(agentId, {
      threadId,
      runId: `bench-${randomUUID()}`,
      messages: [{ id: randomUUID(), role: "user", content: "hi" }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    })) {
      if (first === undefined && event.type === "TEXT_MESSAGE_CONTENT") first = performance.now() - t0;
    }
    return first;
  }

  const later = { fd: [], direct: [] };
  const fresh = { fd: [], direct: [] };
  try {
    // (a) later turns: one session and one thread, each warmed by a first turn.
    const session = await newSession();
    const thread = `bench-direct-${randomUUID()}`;
    threads.push(thread);
    await viaFrontDoor(session);
    await direct(thread);
    for (let i = 0; i < iterations; i++) {
      if (i % 2) {
        later.direct.push(await direct(thread));
        later.fd.push(await viaFrontDoor(session));
      } else {
        later.fd.push(await viaFrontDoor(session));
        later.direct.push(await direct(thread));
      }
    }
    // (b) first turns: a new session / thread each time (each makes its sandbox, deleted after
    // the iteration so the tenant's sandbox quota is never reached).
    for (let i = 0; i < iterations; i++) {
      const t = `bench-direct-${randomUUID()}`;
      const session = await newSession();
      threads.push(t);
      if (i % 2) {
        fresh.direct.push(await direct(t));
        fresh.fd.push(await viaFrontDoor(session));
      } else {
        fresh.fd.push(await viaFrontDoor(session));
        fresh.direct.push(await direct(t));
      }
      await deleteSandboxes([t, session]);
    }
  } finally {
    connection.close();
    child.kill();
    await deleteSandboxes(threads);
    await ab.agents.delete(agentId).catch(() => {});
  }
  return { later, fresh };
}

const s = process.env.BENCH_SKIP_STARTUP ? { fd: [0], node: [0] } : await startup();
console.log(`start-up → initialize answer: agentbox-acp ${fmt(s.fd)}; bare node answering a line ${fmt(s.node)}`);
const { later, fresh } = await latency();
const diff = (a, b) => a.map((x, i) => x - b[i]);
console.log(`(a) later turn, first update: front door ${fmt(later.fd)}; direct SSE ${fmt(later.direct)}; paired difference ${fmt(diff(later.fd, later.direct))}`);
console.log(`(b) first turn, first update: front door ${fmt(fresh.fd)}; direct SSE ${fmt(fresh.direct)}; paired difference ${fmt(diff(fresh.fd, fresh.direct))}`);
console.log(JSON.stringify({ startup: s, later, fresh }));
