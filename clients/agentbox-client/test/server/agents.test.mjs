import { after, test } from "node:test";
import assert from "node:assert/strict";
import { clientA, drain, problemOf, removeAgent, removeRun, settledRun, unique } from "../helpers/server.mjs";

const ab = clientA();
const agents = new Set();
const runs = new Set();

after(async () => {
  for (const runId of runs) await removeRun(ab, runId);
  for (const agentId of agents) await removeAgent(ab, agentId);
});

/** Stores a `command` agent under a fresh id. */
async function putAgent(definition) {
  const agentId = unique("a-client");
  agents.add(agentId);
  const view = await ab.agents.put(agentId, { sandbox: { lifecycle: { keepAliveMs: 120_000 } }, harness: "command", ...definition });
  return { agentId, view };
}

function input(threadId, runId, text) {
  runs.add(runId);
  return { threadId, runId, messages: [{ id: `u-${runId}`, role: "user", content: text }], tools: [], context: [], state: {}, forwardedProps: {} };
}

test("agents: put, get, list, run, join, transcript, delete", async () => {
  const { agentId, view } = await putAgent({ command: `cat > /dev/null; echo '{"delta":"pong"}'` });
  assert.equal(view.agentId, agentId);
  assert.match(view.signingSecret, /^whsec_/);
  const got = await ab.agents.get(agentId);
  assert.equal(got.command, view.command);
  assert.equal(got.signingSecret, undefined, "the signing secret is shown once");
  const replaced = await ab.agents.put(agentId, { sandbox: { lifecycle: { keepAliveMs: 120_000 } }, command: `cat > /dev/null; echo '{"delta":"pong"}'` });
  assert.equal(replaced.signingSecret, undefined);
  assert.ok((await ab.agents.list()).some((a) => a.agentId === agentId));

  const threadId = unique("t-agent");
  const runId = unique("r-agent");
  const events = await drain(ab.agents.run(agentId, input(threadId, runId, "ping")));
  assert.deepEqual(events.map((e) => e.type), [
    "RUN_STARTED", "CUSTOM", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED",
  ]);
  assert.equal(events[0].data.runId, runId);
  assert.equal(events[3].data.delta, "pong");

  const joined = await drain(ab.agents.join(agentId, runId));
  assert.deepEqual(joined.map((e) => e.id), events.map((e) => e.id));
  const resumed = await drain(ab.agents.run(agentId, input(threadId, runId, "ping"), { lastEventId: events[2].id }));
  assert.deepEqual(resumed.map((e) => e.id), events.slice(3).map((e) => e.id), "a repeated POST with Last-Event-ID resumes");

  await settledRun(ab, runId);
  const transcript = await ab.agents.transcript(agentId, threadId);
  assert.equal(transcript.activeRun, null);
  assert.equal(transcript.interrupts, null);
  assert.deepEqual(transcript.messages.map((m) => m.role), ["user", "assistant"]);
  assert.equal(transcript.messages[0].parts[0].content, "ping");
  assert.equal(transcript.messages[1].parts[0].content, "pong");

  await ab.agents.delete(agentId);
  await problemOf(ab.agents.get(agentId), 404, "agent-not-found");
  await problemOf(ab.agents.delete(agentId), 404, "agent-not-found");
});

test("an approval interrupt of a command run's tool call is answered through runs.answerInterrupt", async () => {
  // The definition's tool is gated by an `ask` rule: the call waits for a person before
  // anything is posted, so no tool host has to exist. The refusal comes back to the command.
  const { agentId } = await putAgent({
    command:
      "cat > /dev/null; /opt/agentbox/bin/agentbox-sandboxd tool call weather '{}' > /tmp/out.txt 2>&1; " +
      `echo "{\\"delta\\":\\"tool exit $?\\"}"`,
    tools: [{ name: "weather", description: "the weather", parameters: { type: "object" }, url: "http://tools.invalid/weather" }],
    approvals: [{ tool: "weather", decision: "ask" }],
  });
  const threadId = unique("t-approval");
  const runId = unique("r-approval");
  const first = await drain(ab.agents.run(agentId, input(threadId, runId, "weather?")));
  const finished = first.at(-1);
  assert.equal(finished.type, "RUN_FINISHED");
  assert.equal(finished.data.outcome?.type, "interrupt", "the AG-UI run ends at the interrupt");
  const record = await ab.runs.get(runId);
  assert.equal(record.interrupts?.length, 1);
  const interrupt = record.interrupts[0];
  assert.equal(interrupt.reason, "approval");
  assert.equal(interrupt.tool, "weather");
  const transcript = await ab.agents.transcript(agentId, threadId);
  assert.equal(transcript.activeRun?.runId, runId);
  assert.equal(transcript.interrupts?.length, 1);

  await ab.runs.answerInterrupt(runId, interrupt.id, { status: "resolved", payload: { approved: false } });
  await ab.runs.answerInterrupt(runId, interrupt.id, { status: "resolved", payload: { approved: false } });
  await problemOf(ab.runs.answerInterrupt(runId, interrupt.id, { status: "cancelled" }), 409, "interrupt-answered");

  const events = await drain(ab.runs.events(runId));
  const decided = events.find((e) => e.type === "CUSTOM" && e.data.name === "approval.decided");
  assert.equal(decided.data.value.approved, false);
  assert.equal(decided.data.value.by, "answer");
  const text = events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.data.delta).join("");
  assert.equal(text, "tool exit 1", "the refused call is an error result to the command");
  assert.equal(events.at(-1).type, "RUN_FINISHED");
});
