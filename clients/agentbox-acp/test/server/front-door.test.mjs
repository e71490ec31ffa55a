import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";
import { defineAgent, eventually, openEditor, runsOf, server } from "./editor.mjs";

const { ab } = server();
let agent;
const editors = [];

function editor(options) {
  const e = openEditor(agent.agentId, options);
  editors.push(e);
  return e;
}

before(async () => {
  agent = await defineAgent(ab);
});

after(async () => {
  for (const e of editors) {
    e.child.kill("SIGKILL");
  }
  // Runs a killed editor left going end on their own; cancel any still live before the sandboxes go.
  await agent?.cleanUp();
});

test("a new session's prompt streams the agent's text as updates and ends the turn", async () => {
  const e = editor();
  const init = await e.initialize();
  assert.equal(init.protocolVersion, 1);
  assert.equal(init.agentCapabilities.loadSession, true);
  assert.deepEqual(init.agentCapabilities.sessionCapabilities, { list: {}, resume: {}, close: {} });
  const sessionId = await e.newSession();
  await agent.prepareThread(sessionId);

  const answer = await e.prompt(sessionId, "say hello world");
  assert.deepEqual(answer, { stopReason: "end_turn" });
  assert.equal(e.texts(sessionId).join(""), "hello world");
  assert.ok(e.texts(sessionId).length >= 2, "streamed as chunks, not one message at the end");
  // The record is written just after the stream's last chunk.
  await eventually(async () => (await runsOf(ab, sessionId))[0]?.status === "completed", "the run to complete", 30000);
  await e.close();
});

test("an approval reaches the editor as a permission request: allow writes the file, reject does not", async () => {
  const e = editor({ answer: "allow" });
  await e.initialize();
  const sessionId = await e.newSession();
  const key = await agent.prepareThread(sessionId);

  assert.deepEqual(await e.prompt(sessionId, "write a.txt hello"), { stopReason: "end_turn" });
  assert.equal(e.permissions.length, 1);
  const [asked] = e.permissions;
  assert.equal(asked.sessionId, sessionId);
  assert.equal(asked.toolCall.title, "Write a.txt");
  assert.equal(asked.toolCall.kind, "edit");
  assert.deepEqual(asked.toolCall.rawInput, { path: "a.txt", content: "hello" });
  assert.deepEqual(
    asked.options.map((o) => o.kind),
    ["allow_once", "reject_once"],
  );
  // The permission request names the tool call the editor already shows, which then completes.
  const calls = e.updates.filter((n) => n.update.toolCallId === asked.toolCall.toolCallId).map((n) => n.update.status);
  assert.deepEqual(calls, ["pending", "in_progress", "completed"]);
  assert.deepEqual(e.texts(sessionId), ["wrote"]);
  assert.equal((await ab.sandboxes.exec(key, { command: "cat /workspace/a.txt" })).stdout, "hello");

  e.answer = "reject";
  assert.deepEqual(await e.prompt(sessionId, "write b.txt nope"), { stopReason: "end_turn" });
  assert.equal(e.permissions.length, 2);
  assert.deepEqual(e.texts(sessionId), ["wrote", "not written"]);
  const refused = e.updates.filter((n) => n.update.toolCallId === e.permissions[1].toolCall.toolCallId).at(-1).update;
  assert.equal(refused.status, "failed");
  assert.notEqual((await ab.sandboxes.exec(key, { command: "test -e /workspace/b.txt" })).exitCode, 0);
  // One run per prompt turn: the continuations after the answers started none.
  assert.equal((await runsOf(ab, sessionId)).length, 2);
  await e.close();
});

test("session/cancel mid-turn answers the prompt cancelled and aborts the run", async () => {
  const e = editor();
  await e.initialize();
  const sessionId = await e.newSession();
  await agent.prepareThread(sessionId);

  const answer = e.prompt(sessionId, "slow 60000");
  await e.until(() => e.texts(sessionId).includes("started"), "the turn to start");
  await e.agent.notify(acp.methods.agent.session.cancel, { sessionId });
  assert.deepEqual(await answer, { stopReason: "cancelled" });
  const [run] = await runsOf(ab, sessionId);
  await eventually(async () => (await ab.runs.get(run.runId)).status === "aborted", "the run to be aborted", 30000);
  assert.ok(!e.texts(sessionId).includes("finished"));
  await e.close();
});

test("an editor killed mid-turn leaves the run going; a new editor's session/load shows the whole turn once, and its end", async () => {
  const first = editor();
  await first.initialize();
  const sessionId = await first.newSession();
  await agent.prepareThread(sessionId);
  assert.deepEqual(await first.prompt(sessionId, "say before"), { stopReason: "end_turn" });
  void first.prompt(sessionId, "slow 6000").catch(() => {});
  await first.until(() => first.texts(sessionId).includes("started"), "the slow turn to start");
  first.child.kill("SIGKILL");
  await first.exited;

  const live = await ab.runs.activeRun(sessionId);
  assert.ok(live, "the run goes on without its editor");

  const second = editor();
  await second.initialize();
  assert.deepEqual(await second.agent.request(acp.methods.agent.session.load, { sessionId, cwd: "/home/dev/project", mcpServers: [] }), {});
  await second.until(() => second.texts(sessionId).includes("finished"), "the live turn's end");
  assert.deepEqual(second.texts(sessionId, "user_message_chunk"), ["say before", "slow 6000"]);
  assert.deepEqual(second.texts(sessionId), ["before", "started", "finished"], "each update once, in order");
  await eventually(async () => (await ab.runs.get(live.runId)).status === "completed", "the run to complete", 30000);

  // The loaded session takes the next prompt.
  await eventually(async () => !(await ab.runs.activeRun(sessionId)), "the thread to be idle", 30000);
  assert.deepEqual(await second.prompt(sessionId, "say again"), { stopReason: "end_turn" });
  assert.equal(second.texts(sessionId).slice(3).join(""), "again");
  await second.close();
});

test("two editors on one session: the one that loaded it sees the other's turn live and is told the session is busy", async () => {
  const a = editor();
  const b = editor();
  await Promise.all([a.initialize(), b.initialize()]);
  const sessionId = await a.newSession();
  await agent.prepareThread(sessionId);

  const turn = a.prompt(sessionId, "slow 5000");
  await a.until(() => a.texts(sessionId).includes("started"), "a's turn to start");
  await b.agent.request(acp.methods.agent.session.load, { sessionId, cwd: "/home/dev/project", mcpServers: [] });
  await assert.rejects(b.prompt(sessionId, "say interloper"), (err) => err.code === -32001 && /live turn/.test(err.message));
  await b.until(() => b.texts(sessionId).includes("finished"), "b to see a's turn end");
  assert.deepEqual(await turn, { stopReason: "end_turn" });
  assert.deepEqual(b.texts(sessionId), ["started", "finished"]);
  assert.deepEqual(a.texts(sessionId), ["started", "finished"]);
  assert.equal((await runsOf(ab, sessionId)).length, 1, "the refused prompt started no run");

  // Once the turn is over, b prompts and a (which does not follow b's turns) is unaffected.
  assert.deepEqual(await b.prompt(sessionId, "say mine"), { stopReason: "end_turn" });
  await Promise.all([a.close(), b.close()]);
});

test("session/list shows the agent's threads, newest first, titled by their first prompt", async () => {
  const e = editor();
  await e.initialize();
  const sessionId = await e.newSession();
  await agent.prepareThread(sessionId);
  await e.prompt(sessionId, "say listed\nsecond line");
  const { sessions } = await e.agent.request(acp.methods.agent.session.list, {});
  assert.ok(sessions.length >= 2, "the suite's earlier sessions are threads of the agent too");
  assert.equal(sessions[0].sessionId, sessionId);
  assert.equal(sessions[0].title, "say listed");
  assert.equal(sessions[0].cwd, "/home/dev/project");
  assert.ok(!Number.isNaN(Date.parse(sessions[0].updatedAt)));
  await e.close();
});
