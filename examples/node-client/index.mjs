// npm run start -w agentbox-example-node-client   (or: node index.mjs)
//
// Drives one sandbox and one run through agentbox-client, printing what happens as it happens:
// ensure a sandbox, write a file into it, exec a command, start a `command` run that reads the
// file and prints NDJSON, follow the run's events until it ends, delete the sandbox. The last
// line on stdout is a JSON summary, {"ok":true,...} or {"ok":false,"error":...}; a failure also
// exits non-zero. The sandbox is deleted whatever happens, once it was made.
//
//   AGENTBOX_URL    the service (default http://localhost:9080)
//   AGENTBOX_TOKEN  a tenant's bearer token (leave unset when the service runs without tokens)
import { randomUUID } from "node:crypto";
import { AgentboxClient, AgentboxProblem } from "agentbox-client";

const baseUrl = process.env.AGENTBOX_URL ?? "http://localhost:9080";
const ab = new AgentboxClient({ baseUrl, token: process.env.AGENTBOX_TOKEN });

// The agent: any command whose stdout is NDJSON. A {"delta":"…"} line is text; here one line per
// word of the file written below, then a line with a `type`, which is an AG-UI event of its own.
const AGENT = [
  `for word in $(cat notes/hello.txt); do printf '{"delta":"%s "}\\n' "$word"; sleep 0.05; done`,
  `printf '{"type":"CUSTOM","name":"example.done","value":{"words":%s}}\\n' "$(wc -w < notes/hello.txt)"`,
].join("; ");

const suffix = randomUUID().slice(0, 8);
const threadId = `node-client-${suffix}`;
const runId = `node-client-run-${suffix}`;
const summary = { ok: false, threadId, runId };
let key;

try {
  const sandbox = await ab.sandboxes.ensure({ threadId });
  key = sandbox.key;
  summary.sandbox = key;
  console.log(`sandbox ${key} (${sandbox.outcome}, ${sandbox.provider})`);

  await ab.sandboxes.files.write(key, "notes/hello.txt", "agentbox runs this agent in a sandbox\n");
  const exec = await ab.sandboxes.exec(key, { command: "wc -w notes/hello.txt && uname -sm" });
  console.log(`exec exit ${exec.exitCode}:\n${exec.stdout.trimEnd()}`);
  if (exec.exitCode !== 0) throw new Error(`exec failed: ${exec.stderr}`);
  summary.exec = { exitCode: exec.exitCode, stdout: exec.stdout };

  const run = await ab.runs.start({ runId, threadId, sandbox: { key }, harness: "command", command: AGENT });
  console.log(`run ${run.runId}: ${run.status}`);

  let text = "";
  const types = [];
  for await (const event of ab.runs.events(run.runId)) {
    types.push(event.type);
    if (event.type === "TEXT_MESSAGE_CONTENT") text += event.data.delta;
    const detail =
      event.type === "TEXT_MESSAGE_CONTENT" ? ` ${JSON.stringify(event.data.delta)}`
      : event.type === "CUSTOM" ? ` ${event.data.name} ${JSON.stringify(event.data.value)}`
      : event.type === "RUN_ERROR" ? ` ${event.data.message}`
      : "";
    console.log(`  ${event.id.padStart(3)} ${event.type}${detail}`);
  }
  const last = types.at(-1);
  Object.assign(summary, { events: types.length, text: text.trim(), lastEvent: last });
  if (last !== "RUN_FINISHED") throw new Error(`the run ended with ${last ?? "no event"}`);
  summary.ok = true;
} catch (error) {
  summary.error =
    error instanceof AgentboxProblem
      ? { status: error.status, code: error.code, title: error.title, detail: error.detail, field: error.field }
      : String(error?.stack ?? error);
  process.exitCode = 1;
} finally {
  if (key !== undefined) {
    try {
      await ab.sandboxes.delete(key);
      summary.deleted = true;
      console.log(`sandbox ${key} deleted`);
    } catch (error) {
      summary.deleted = false;
      summary.ok = false;
      summary.deleteError = String(error);
      process.exitCode = 1;
    }
  }
  console.log(JSON.stringify(summary));
}
