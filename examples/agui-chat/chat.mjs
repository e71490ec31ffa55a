// node chat.mjs "your prompt"
// Sends one prompt to an agentbox agent through @tanstack/ai-client and prints the agent's text
// as it streams. The agent definition is created on first use when it does not exist.
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
const agentId = process.env.AGENT_ID ?? "agui-chat";
const prompt = process.argv.slice(2).join(" ");
if (!prompt) {
  console.error('usage: node chat.mjs "your prompt"');
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
  };
  const put = await fetch(agentUrl, {
    method: "PUT",
    headers: { ...headers, "Content-Type": "application/json" },
    body: JSON.stringify(definition),
  });
  if (!put.ok) throw new Error(`PUT ${agentUrl}: ${put.status} ${await put.text()}`);
  console.error(`(created agent ${agentId})`);
}

await ensureAgent();
const connection = fetchServerSentEvents(agentUrl, { headers });
const threadId = process.env.THREAD_ID ?? `thread-${randomUUID()}`;
const runId = `run-${randomUUID()}`;
const messages = [{ id: `${runId}-user`, role: "user", parts: [{ type: "text", content: prompt }] }];

for await (const chunk of connection.connect(messages, {}, undefined, { threadId, runId })) {
  if (chunk.type === "TEXT_MESSAGE_CONTENT") process.stdout.write(chunk.delta);
  if (chunk.type === "TEXT_MESSAGE_END") process.stdout.write("\n");
  if (chunk.type === "RUN_ERROR") {
    console.error(`run failed: ${chunk.message}`);
    process.exitCode = 1;
  }
}
console.error(`(thread ${threadId}, run ${runId})`);
