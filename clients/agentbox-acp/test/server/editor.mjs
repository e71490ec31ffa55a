// Test support: an editor played by the ACP SDK's client, driving `node dist/cli.js` as a child
// process exactly as Zed or JetBrains would, and the agentbox setup the tests share.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk";
import { AgentboxClient } from "agentbox-client";

const here = dirname(fileURLToPath(import.meta.url));
export const CLI = join(here, "..", "..", "dist", "cli.js");

/** The server the suite runs against: configured by the environment only, never skipped. */
export function server() {
  const baseUrl = process.env.AGENTBOX_URL;
  const token = process.env.AGENTBOX_TOKEN;
  if (!baseUrl || !token) throw new Error("AGENTBOX_URL and AGENTBOX_TOKEN must name the server under test (and AGENTBOX_TOKEN_B tenant-b's token)");
  return { baseUrl, token, ab: new AgentboxClient({ baseUrl, token }) };
}

/** Where the scripted ACP agent runs inside the sandbox (as the acp harness ITs put it). */
export const AGENT_PATH = "/opt/acp-test/agent.mjs";

/** The scripted ACP agent, one self-contained file (`./scripts/node-clients` builds it). */
export function agentBundle() {
  const path = process.env.ACP_TEST_AGENT_BUNDLE ?? join(here, "..", "..", "..", "..", "src", "test", "node", "dist", "acp-test-agent.bundle.mjs");
  if (!existsSync(path)) throw new Error(`${path} is missing: run ./scripts/node-clients (or set ACP_TEST_AGENT_BUNDLE)`);
  return readFileSync(path);
}

/**
 * An `acp` agent running the scripted agent in the agents image, durable and detaching on
 * disconnect (the defaults, spelled out: the suite depends on them), whose `Write *` calls ask.
 */
export async function defineAgent(ab) {
  const suffix = randomUUID().slice(0, 8);
  const agentId = `acp-front-door-${suffix}`;
  const sandbox = { definitionId: `acp-front-door-${suffix}`, image: "agentbox/sandbox:agents", policy: { network: "none" } };
  await ab.agents.put(agentId, {
    sandbox,
    harness: "acp",
    acp: { agent: "custom", command: "node", args: [AGENT_PATH] },
    approvals: [{ tool: "Write *", decision: "ask" }],
    durable: true,
    detachOnDisconnect: true,
    maxDurationMs: 300000,
  });
  const bundle = agentBundle();
  const keys = [];
  return {
    agentId,
    /** Makes the thread's sandbox (the one the agent's runs reuse) and puts the scripted agent in it. */
    async prepareThread(threadId) {
      const view = await ab.sandboxes.ensure({ ...sandbox, threadId, lifecycle: { reuse: "thread" } });
      keys.push(view.key);
      await ab.sandboxes.files.write(view.key, AGENT_PATH, bundle);
      return view.key;
    },
    async cleanUp() {
      await ab.agents.delete(agentId).catch(() => {});
      for (const key of keys) await ab.sandboxes.delete(key).catch(() => {});
    },
  };
}

/**
 * Starts `agentbox-acp --agent <agentId>` and connects an SDK client to it. `updates` collects
 * every session/update, `permissions` every permission request, answered by `answer` (option id).
 */
export function openEditor(agentId, { answer = "allow" } = {}) {
  const { baseUrl, token } = server();
  const child = spawn(process.execPath, [CLI, "--agent", agentId], {
    env: { ...process.env, AGENTBOX_URL: baseUrl, AGENTBOX_TOKEN: token },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const editor = {
    child,
    exited,
    get stderr() {
      return stderr;
    },
    updates: [],
    permissions: [],
    answer,
    waiters: [],
  };
  const app = acp
    .client({ name: "test-editor" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      editor.updates.push(params);
      for (const w of [...editor.waiters]) w();
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      editor.permissions.push(params);
      for (const w of [...editor.waiters]) w();
      return { outcome: { outcome: "selected", optionId: editor.answer } };
    });
  const connection = app.connect(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));
  editor.agent = connection.agent;
  editor.connection = connection;
  editor.initialize = () => editor.agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
  editor.newSession = async () => (await editor.agent.request(acp.methods.agent.session.new, { cwd: "/home/dev/project", mcpServers: [] })).sessionId;
  editor.prompt = (sessionId, text) => editor.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
  /** The texts of one update kind of a session, in order. */
  editor.texts = (sessionId, kind = "agent_message_chunk") =>
    editor.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === kind).map((n) => n.update.content.text);
  /** Resolves once `predicate()` holds (checked at each update and permission request). */
  editor.until = (predicate, what, ms = 60000) =>
    new Promise((resolve, reject) => {
      if (predicate()) return resolve();
      const timer = setTimeout(() => {
        editor.waiters = editor.waiters.filter((w) => w !== check);
        reject(new Error(`timed out waiting for ${what}; updates: ${JSON.stringify(editor.updates.map((n) => n.update))}; stderr: ${stderr}`));
      }, ms);
      const check = () => {
        if (!predicate()) return;
        clearTimeout(timer);
        editor.waiters = editor.waiters.filter((w) => w !== check);
        resolve();
      };
      editor.waiters.push(check);
    });
  /** Closes stdin (the editor quits) and waits for the process to exit. */
  editor.close = async () => {
    connection.close();
    child.stdin.end();
    return exited;
  };
  return editor;
}

/** The thread's one run (the front door starts one per prompt turn; continuations are not runs). */
export async function runsOf(ab, threadId) {
  const runs = [];
  for await (const run of ab.runs.list({ threadId })) runs.push(run);
  return runs;
}

export async function eventually(check, what, ms = 60000) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    last = await check();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}
