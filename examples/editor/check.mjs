// Plays the editor with each configuration here: starts the command, arguments and environment
// the file names, as Zed or JetBrains would, and runs one turn through it —
// `initialize`, `session/new`, `session/prompt` — against a `command` agent this check defines
// and deletes. What the check changes in the entry before starting it, and only that:
//   - AGENTBOX_URL becomes this environment's AGENTBOX_URL;
//   - AGENTBOX_TOKEN becomes this environment's AGENTBOX_TOKEN, and AGENTBOX_TOKEN_FILE a file
//     holding it;
//   - the `--agent` value becomes the agent defined here (a random id, so that nothing of the
//     tenant's is touched and two checks can run at once).
// The last line printed is JSON: {"ok":true,...}, or {"ok":false,"error":…} with exit code 1.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk";
import { AgentboxClient } from "agentbox-client";

const here = dirname(fileURLToPath(import.meta.url));
const CONFIGS = ["zed-settings.json", "jetbrains-acp.json"];
const GREETING = "hello from agentbox";

const baseUrl = process.env.AGENTBOX_URL;
const token = process.env.AGENTBOX_TOKEN;

/** The entry with this environment's server, token and agent put in. */
function substitute(entry, agentId, tokenFile) {
  const args = [...entry.args];
  const at = args.indexOf("--agent");
  if (at < 0 || at + 1 >= args.length) throw new Error("the entry names no --agent");
  args[at + 1] = agentId;
  const env = { ...entry.env };
  if ("AGENTBOX_URL" in env) env.AGENTBOX_URL = baseUrl;
  if ("AGENTBOX_TOKEN" in env) env.AGENTBOX_TOKEN = token ?? "";
  if ("AGENTBOX_TOKEN_FILE" in env) env.AGENTBOX_TOKEN_FILE = tokenFile;
  return { command: entry.command, args, env };
}

async function oneTurn(file, agentId, tokenFile) {
  const entry = JSON.parse(readFileSync(join(here, file), "utf8")).agent_servers?.agentbox;
  if (!entry) throw new Error(`${file} has no agent_servers.agentbox`);
  const { command, args, env } = substitute(entry, agentId, tokenFile);
  // The editor's environment underneath (PATH for npx), the entry's own on top, as editors do.
  const inherited = { ...process.env };
  delete inherited.AGENTBOX_TOKEN;
  delete inherited.AGENTBOX_TOKEN_FILE;
  const t0 = performance.now();
  const child = spawn(command, args, { cwd: here, env: { ...inherited, ...env }, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const texts = [];
  const connection = acp
    .client({ name: "agentbox-example-editor" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      if (params.update.sessionUpdate === "agent_message_chunk") texts.push(params.update.content.text);
    })
    .connect(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));
  try {
    const init = await connection.agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    const initializeMs = Math.round(performance.now() - t0);
    if (init.protocolVersion !== 1) throw new Error(`protocol version ${init.protocolVersion}`);
    const { sessionId } = await connection.agent.request(acp.methods.agent.session.new, { cwd: here, mcpServers: [] });
    const { stopReason } = await connection.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "say hello" }],
    });
    const text = texts.join("");
    if (stopReason !== "end_turn" || text !== GREETING) throw new Error(`turn ended ${stopReason} with ${JSON.stringify(text)}`);
    return { file, command: [command, ...args].join(" "), initializeMs, sessionId, stopReason, text };
  } catch (e) {
    throw new Error(`${file}: ${e.message}${stderr ? ` (stderr: ${stderr.trim()})` : ""}`);
  } finally {
    connection.close();
    child.kill();
  }
}

async function main() {
  if (!baseUrl) throw new Error("AGENTBOX_URL (and AGENTBOX_TOKEN unless the server is in dev mode) must name the server");
  const ab = new AgentboxClient({ baseUrl, token });
  const agentId = `example-editor-${randomUUID().slice(0, 8)}`;
  const dir = mkdtempSync(join(tmpdir(), "agentbox-editor-"));
  const tokenFile = join(dir, "token");
  writeFileSync(tokenFile, `${token ?? ""}\n`, { mode: 0o600 });
  await ab.agents.put(agentId, {
    sandbox: { definitionId: agentId, policy: { network: "none" } },
    harness: "command",
    command: `echo '{"delta":"${GREETING}"}'`,
  });
  const results = [];
  try {
    for (const file of CONFIGS) results.push(await oneTurn(file, agentId, tokenFile));
  } finally {
    const keys = new Set();
    for (const r of results) for await (const run of ab.runs.list({ threadId: r.sessionId })) if (run.sandboxKey) keys.add(run.sandboxKey);
    for (const key of keys) await ab.sandboxes.delete(key).catch(() => {});
    await ab.agents.delete(agentId).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

main().then(
  (results) => console.log(JSON.stringify({ ok: true, configs: results })),
  (e) => {
    console.log(JSON.stringify({ ok: false, error: e.message }));
    process.exit(1);
  },
);
