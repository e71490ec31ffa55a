// Self-check of the bundled ACP test agent (dist/acp-test-agent.bundle.mjs), run by hand:
//   node acp-test-agent-check.mjs
// It plays the client with the SDK's client API against two agent processes that share a HOME:
// the first makes a session, says hello and writes a file with permission; the second loads the
// session (its history must be replayed) and asks for the history of prompts. Exits non-zero on
// the first failed expectation.
import * as acp from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const bundle = path.join(here, "dist", "acp-test-agent.bundle.mjs");
const home = fs.mkdtempSync(path.join(os.tmpdir(), "acp-check-home-"));
const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "acp-check-cwd-"));

/** Runs one agent process and the client workflow `op(ctx, updates)` against it. */
async function withAgent(op, { answer = "allow" } = {}) {
  const child = spawn(process.execPath, [bundle], {
    cwd,
    env: { ...process.env, HOME: home },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  const updates = [];
  const permissions = [];
  const app = acp
    .client({ name: "acp-test-agent-check" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params.update);
    })
    .onRequest("session/request_permission", ({ params }) => {
      permissions.push(params);
      return { outcome: { outcome: "selected", optionId: answer } };
    });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const result = await app.connectWith(stream, (ctx) => op(ctx, updates, permissions));
  child.stdin.end();
  const code = await exited;
  assert.equal(code, 0, "the agent exits 0 when its stdin ends");
  return result;
}

const texts = (updates, kind = "agent_message_chunk") =>
  updates.filter((u) => u.sessionUpdate === kind).map((u) => u.content.text);

async function initialize(ctx) {
  const init = await ctx.request("initialize", {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  assert.equal(init.protocolVersion, 1);
  assert.equal(init.agentCapabilities.loadSession, true);
  assert.deepEqual(init.agentCapabilities.sessionCapabilities?.resume, {});
}

let sessionId;

await withAgent(async (ctx, updates, permissions) => {
  await initialize(ctx);
  const created = await ctx.request("session/new", { cwd, mcpServers: [] });
  sessionId = created.sessionId;
  assert.match(sessionId, /^[0-9a-f-]{36}$/);
  assert.equal(created.modes.currentModeId, "default");
  assert.equal(created.modes.availableModes.length, 4);

  const prompt = (text) => ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });

  let response = await prompt("say hello world");
  assert.equal(response.stopReason, "end_turn");
  assert.deepEqual(texts(updates), ["hello ", "world"]);

  updates.length = 0;
  response = await prompt("write a.txt hi");
  assert.equal(response.stopReason, "end_turn");
  assert.equal(permissions.length, 1);
  assert.deepEqual(
    permissions[0].options.map((o) => o.optionId),
    ["allow", "always", "reject"],
  );
  assert.equal(permissions[0].toolCall.title, "Write a.txt");
  const call = updates.find((u) => u.sessionUpdate === "tool_call");
  assert.equal(call.kind, "edit");
  assert.equal(call.status, "pending");
  const done = updates.find((u) => u.sessionUpdate === "tool_call_update");
  assert.equal(done.toolCallId, call.toolCallId);
  assert.equal(done.status, "completed");
  assert.deepEqual(done.content[0], { type: "diff", path: path.join(cwd, "a.txt"), oldText: null, newText: "hi" });
  assert.deepEqual(texts(updates), ["wrote"]);
  assert.equal(fs.readFileSync(path.join(cwd, "a.txt"), "utf8"), "hi");
});

await withAgent(async (ctx, updates) => {
  await initialize(ctx);
  const loaded = await ctx.request("session/load", { sessionId, cwd, mcpServers: [] });
  assert.equal(loaded.modes.currentModeId, "default");
  // Replayed history: each prompt as a user chunk, each reply as an agent chunk.
  assert.deepEqual(texts(updates, "user_message_chunk"), ["say hello world", "write a.txt hi"]);
  assert.deepEqual(texts(updates), ["hello world", "wrote"]);

  updates.length = 0;
  const response = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "history" }] });
  assert.equal(response.stopReason, "end_turn");
  assert.deepEqual(texts(updates), ["say hello world | write a.txt hi"]);

  await assert.rejects(
    ctx.request("session/load", { sessionId: "no-such-session", cwd, mcpServers: [] }),
    (err) => err.code === -32002,
  );
});

fs.rmSync(home, { recursive: true, force: true });
fs.rmSync(cwd, { recursive: true, force: true });
console.log("acp-test-agent check: passed");
