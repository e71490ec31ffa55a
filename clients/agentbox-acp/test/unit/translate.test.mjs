import { test } from "node:test";
import assert from "node:assert/strict";
import { ChunkTranslator, toolTitleAndKind, promptText, UnsupportedContent, initializeResult } from "../../dist/index.js";

function run(chunks) {
  const t = new ChunkTranslator();
  const updates = [];
  let end;
  for (const c of chunks) {
    const r = t.push(c);
    updates.push(...r.updates);
    if (r.end) end = r.end;
  }
  return { updates, end, translator: t };
}

test("text chunks become agent_message_chunk updates of the same message, the run's end end_turn", () => {
  const { updates, end } = run([
    { type: "RUN_STARTED", threadId: "t", runId: "r" },
    { type: "CUSTOM", name: "run.accepted", value: {} },
    { type: "TEXT_MESSAGE_START", messageId: "r-0", role: "assistant" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "r-0", delta: "hello " },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "r-0", delta: "" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "r-0", delta: "world" },
    { type: "TEXT_MESSAGE_END", messageId: "r-0" },
    { type: "RUN_FINISHED", threadId: "t", runId: "r" },
  ]);
  assert.deepEqual(updates, [
    { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hello " }, messageId: "r-0" },
    { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "world" }, messageId: "r-0" },
  ]);
  assert.deepEqual(end, { kind: "finished", stopReason: "end_turn" });
});

test("reasoning becomes agent_thought_chunk; a user-role message becomes user_message_chunk", () => {
  const { updates } = run([
    { type: "REASONING_START", messageId: "r-0" },
    { type: "REASONING_MESSAGE_START", messageId: "r-1", role: "reasoning" },
    { type: "REASONING_MESSAGE_CONTENT", messageId: "r-1", delta: "thinking" },
    { type: "THINKING_TEXT_MESSAGE_CONTENT", delta: "more" },
    { type: "TEXT_MESSAGE_START", messageId: "u", role: "user" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "u", delta: "hi" },
  ]);
  assert.deepEqual(
    updates.map((u) => [u.sessionUpdate, u.content.text]),
    [
      ["agent_thought_chunk", "thinking"],
      ["agent_thought_chunk", "more"],
      ["user_message_chunk", "hi"],
    ],
  );
});

test("a tool call goes pending → in_progress (with its arguments) → completed (with its result)", () => {
  const { updates } = run([
    { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "execute: ls -la" },
    { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: '{"command":' },
    { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: '"ls -la"}' },
    { type: "TOOL_CALL_END", toolCallId: "c1" },
    { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "c1", content: [{ type: "text", text: "a.txt" }], role: "tool" },
  ]);
  assert.deepEqual(updates[0], { sessionUpdate: "tool_call", toolCallId: "c1", title: "ls -la", kind: "execute", status: "pending" });
  assert.deepEqual(updates[1], { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "in_progress", rawInput: { command: "ls -la" } });
  assert.equal(updates[2].status, "completed");
  assert.deepEqual(updates[2].content, [{ type: "content", content: { type: "text", text: "a.txt" } }]);
});

test("a call an approval refused ends failed", () => {
  const { updates } = run([
    { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "edit: Write a.txt" },
    { type: "TOOL_CALL_END", toolCallId: "c1" },
    { type: "CUSTOM", name: "approval.decided", value: { tool: "Write a.txt", approved: false, by: "answer" } },
    { type: "TOOL_CALL_RESULT", toolCallId: "c1", content: "failed", messageId: "m" },
  ]);
  assert.equal(updates.at(-1).status, "failed");
});

test("a refusal logged just after the call's result marks the call failed", () => {
  const { updates } = run([
    { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "edit: Write a.txt" },
    { type: "TOOL_CALL_END", toolCallId: "c1" },
    { type: "TOOL_CALL_RESULT", toolCallId: "c1", content: "failed", messageId: "m" },
    { type: "CUSTOM", name: "approval.decided", value: { tool: "Write a.txt", approved: false, by: "answer" } },
  ]);
  assert.deepEqual(updates.at(-1), { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "failed" });
});

test("tool names: the acp harness's '<kind>: <title>', CLI tools by well-known names, else other", () => {
  assert.deepEqual(toolTitleAndKind("edit: Write a.txt"), { title: "Write a.txt", kind: "edit" });
  assert.deepEqual(toolTitleAndKind("Bash"), { title: "Bash", kind: "execute" });
  assert.deepEqual(toolTitleAndKind("Read"), { title: "Read", kind: "read" });
  assert.deepEqual(toolTitleAndKind("mcp__agentbox__weather"), { title: "mcp__agentbox__weather", kind: "other" });
  assert.deepEqual(toolTitleAndKind("note: not a kind"), { title: "note: not a kind", kind: "other" });
});

test("plans, passed-on ACP updates and stop reasons reach the editor as ACP has them", () => {
  const entries = [{ content: "step", priority: "high", status: "in_progress" }];
  const { updates, end } = run([
    { type: "CUSTOM", name: "acp.plan", value: { entries } },
    { type: "CUSTOM", name: "acp.update", value: { sessionUpdate: "available_commands_update", availableCommands: [] } },
    { type: "CUSTOM", name: "codex.todo-list", value: [{ text: "write tests", completed: true }] },
    { type: "CUSTOM", name: "acp.stop", value: { stopReason: "refusal" } },
    { type: "CUSTOM", name: "file.changed", value: { path: "/workspace/a", kind: "create" } },
    { type: "RUN_FINISHED" },
  ]);
  assert.deepEqual(updates, [
    { sessionUpdate: "plan", entries },
    { sessionUpdate: "available_commands_update", availableCommands: [] },
    { sessionUpdate: "plan", entries: [{ content: "write tests", priority: "medium", status: "completed" }] },
  ]);
  assert.deepEqual(end, { kind: "finished", stopReason: "refusal" });
});

test("RUN_ERROR ends the run with its message and code", () => {
  assert.deepEqual(run([{ type: "RUN_ERROR", message: "boom", code: "agent-exit" }]).end, { kind: "error", message: "boom", code: "agent-exit" });
});

test("an interrupt outcome ends the AG-UI run, and the permission request names the call already shown", () => {
  const interrupt = {
    id: "i-1",
    reason: "approval_required",
    message: "Approve the call of Write a.txt?",
    metadata: { kind: "approval", toolName: "Write a.txt", input: { path: "a.txt", content: "hello" } },
  };
  const { end, translator } = run([
    { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "edit: Write a.txt" },
    { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: '{"path":"a.txt","content":"hello"}' },
    { type: "TOOL_CALL_END", toolCallId: "c1" },
    { type: "STATE_SNAPSHOT", snapshot: {} },
    { type: "MESSAGES_SNAPSHOT", messages: [] },
    { type: "RUN_FINISHED", outcome: { type: "interrupt", interrupts: [interrupt] } },
  ]);
  assert.deepEqual(end, { kind: "interrupt", interrupts: [interrupt] });
  assert.deepEqual(translator.permissionRequest(interrupt), {
    toolCall: { toolCallId: "c1", title: "Write a.txt", kind: "edit", status: "pending", rawInput: { path: "a.txt", content: "hello" } },
  });
});

test("a permission request about a call the turn never showed announces it first", () => {
  const t = new ChunkTranslator();
  const { toolCall, announce } = t.permissionRequest({ id: "i-2", metadata: { toolName: "Bash", input: { command: "rm -rf /" } } });
  assert.equal(toolCall.toolCallId, "interrupt-i-2");
  assert.equal(toolCall.kind, "execute");
  assert.deepEqual(announce, { sessionUpdate: "tool_call", toolCallId: "interrupt-i-2", title: "Bash", kind: "execute", status: "pending", rawInput: { command: "rm -rf /" } });
});

test("a prompt is its text blocks and resource links; images are refused", () => {
  assert.equal(
    promptText([
      { type: "text", text: "look at" },
      { type: "resource_link", uri: "file:///src/a.ts", name: "a.ts" },
      { type: "resource", resource: { uri: "file:///b", text: "inline" } },
    ]),
    "look at\nfile:///src/a.ts\ninline",
  );
  assert.throws(() => promptText([{ type: "image", data: "", mimeType: "image/png" }]), UnsupportedContent);
  assert.throws(() => promptText([{ type: "text", text: "  " }]), UnsupportedContent);
});

test("initialize offers load, list, resume and close, and text prompts only", () => {
  const r = initializeResult();
  assert.equal(r.protocolVersion, 1);
  assert.equal(r.agentCapabilities.loadSession, true);
  assert.deepEqual(r.agentCapabilities.sessionCapabilities, { list: {}, resume: {}, close: {} });
  assert.deepEqual(r.agentCapabilities.promptCapabilities, { image: false, audio: false, embeddedContext: false });
});
