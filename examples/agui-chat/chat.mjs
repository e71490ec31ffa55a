// node chat.mjs "your prompt"
// node chat.mjs --once ["your prompt"]
// Sends one prompt to an agentbox agent through @tanstack/ai-client and prints the agent's text
// as it streams. The agent definition is created on first use when it does not exist.
//
// With --once (unattended, as CI runs it: `npm run start -w agentbox-agui-chat-example`) it
// defines an agent of its own under a fresh id (AGENT_COMMAND or the echo agent, its sandbox
// destroyed when the run completes), sends the prompt (default "hello from agui-chat"), then
// deletes the run's sandbox if it is still there and the definition, whatever happened. Its
// last line on stdout is a JSON summary, {"ok":true,...} or {"ok":false,"error":...}; a
// failure also exits non-zero.
//
//   AGENTBOX_URL    the service (default http://localhost:9080)
//   AGENTBOX_TOKEN  a tenant's bearer token (leave unset when the service runs without tokens)
//   AGENT_ID        the agent definition to use (default agui-chat)
//   AGENT_COMMAND   the command of a newly created definition (default: an agent that echoes
//                   the prompt word by word; any command that reads the prompt on stdin and
//                   prints NDJSON will do)
import { randomUUID } from "node:crypto";
import { fetchServerSentEvents } from "@tanstack/ai-client";

const baseUrl = (process.env.AGENTBOX_URL ?? "http://localhost:9080").replace(/\/$/, "");
const token = process.env.AGENTBOX_TOKEN;
const args = process.argv.slice(2);
const once = args[0] === "--once";
if (once) args.shift();
const agentId = once ? `agui-chat-once-${randomUUID().slice(0, 8)}` : (process.env.AGENT_ID ?? "agui-chat");
const prompt = args.join(" ") || (once ? "hello from agui-chat" : "");
if (!prompt) {
  console.error('usage: node chat.mjs "your prompt"   or   node chat.mjs --once ["your prompt"]');
  process.exit(2);
}

const ECHO_AGENT =
  "set -f; p=$(cat); printf '{\"delta\":\"You said:\"}\\n';" +
  " for w in $p; do sleep 0.2; printf '{\"delta\":\" %s\"}\\n' \"$w\"; done";
const headers = token ? { Authorization: `Bearer ${token}` } : {};
const agentUrl = `${baseUrl}/api/v1/agents/${encodeURIComponent(agentId)}`;

async function ensureAgent() {
  const found = await fetch(agentUrl, { headers: { ...headers, Accept: "application/json" } });
  if (found.ok) return;
  if (found.status !== 404) throw new Error(`GET ${agentUrl}: ${found.status} ${await found.text()}`);
  const definition = {
    sandbox: { definitionId: `agent-${agentId}` },
    harness: "command",
    command: process.env.AGENT_COMMAND ?? ECHO_AGENT,
    ...(once ? { destroyOnComplete: true } : {}),
  };
  const put = await fetch(agentUrl, {
    method: "PUT",
    headers: { ...headers, "Content-Type": "application/json" },
    body: JSON.stringify(definition),
  });
  if (!put.ok) throw new Error(`PUT ${agentUrl}: ${put.status} ${await put.text()}`);
  console.error(`(created agent ${agentId})`);
}

/** Sends the prompt and prints the agent's text as it streams; answers what came back. */
async function chat(threadId, runId) {
  const connection = fetchServerSentEvents(agentUrl, { headers });
  const messages = [{ id: `${runId}-user`, role: "user", parts: [{ type: "text", content: prompt }] }];
  let text = "";
  let last;
  for await (const chunk of connection.connect(messages, {}, undefined, { threadId, runId })) {
    last = chunk.type;
    if (chunk.type === "TEXT_MESSAGE_CONTENT") {
      text += chunk.delta;
      process.stdout.write(chunk.delta);
    }
    if (chunk.type === "TEXT_MESSAGE_END") process.stdout.write("\n");
    if (chunk.type === "RUN_ERROR") {
      console.error(`run failed: ${chunk.message}`);
      process.exitCode = 1;
    }
  }
  console.error(`(thread ${threadId}, run ${runId})`);
  return { text, last };
}

/** A DELETE that may find nothing to delete; anything but 2xx and 404 is an error. */
async function remove(path) {
  const res = await fetch(`${baseUrl}/api/v1${path}`, { method: "DELETE", headers });
  if (!res.ok && res.status !== 404) throw new Error(`DELETE ${path}: ${res.status} ${await res.text()}`);
}

/** --once: define, chat, and remove what was made, whatever happened; a JSON summary last. */
async function chatOnce() {
  const threadId = `thread-${randomUUID()}`;
  const runId = `run-${randomUUID()}`;
  const summary = { ok: false, agentId, threadId, runId };
  let defined = false;
  try {
    await ensureAgent();
    defined = true;
    const { text, last } = await chat(threadId, runId);
    Object.assign(summary, { text: text.trim(), lastEvent: last });
    if (last !== "RUN_FINISHED") throw new Error(`the run ended with ${last ?? "no event"}`);
    if (!process.env.AGENT_COMMAND && !text.includes(prompt)) throw new Error(`the agent's text does not echo the prompt: ${JSON.stringify(text)}`);
    summary.ok = true;
  } catch (error) {
    summary.error = String(error?.stack ?? error);
  } finally {
    try {
      const res = await fetch(`${baseUrl}/api/v1/runs/${encodeURIComponent(runId)}`, { headers });
      const record = res.ok ? await res.json() : {};
      if (record.sandboxKey) await remove(`/sandboxes/${encodeURIComponent(record.sandboxKey)}`);
      if (defined) await remove(`/agents/${encodeURIComponent(agentId)}`);
      summary.cleanedUp = true;
    } catch (error) {
      summary.ok = false;
      summary.cleanupError = String(error);
    }
  }
  if (!summary.ok) process.exitCode = 1;
  console.log(JSON.stringify(summary));
}

if (once) {
  await chatOnce();
} else {
  await ensureAgent();
  await chat(process.env.THREAD_ID ?? `thread-${randomUUID()}`, `run-${randomUUID()}`);
}
