import { test } from "node:test";
import assert from "node:assert/strict";
import { splitLiveTurn, transcriptUpdates, inputHistory } from "../../dist/index.js";

const messages = [
  { id: "u-1", role: "user", parts: [{ type: "text", content: "write a.txt" }] },
  {
    id: "r1-0",
    role: "assistant",
    parts: [
      { type: "thinking", content: "hm" },
      { type: "tool-call", id: "r1-1", name: "edit: Write a.txt", arguments: '{"path":"a.txt"}', state: "input-complete" },
      { type: "tool-result", toolCallId: "r1-1", content: "wrote", state: "complete" },
      { type: "text", content: "done" },
    ],
  },
  { id: "u-2", role: "user", parts: [{ type: "text", content: "slow 5000" }] },
  { id: "r2-0", role: "assistant", parts: [{ type: "text", content: "started" }] },
];

test("a finished thread replays as user and agent chunks, thoughts and completed tool calls, in order", () => {
  assert.deepEqual(transcriptUpdates(messages.slice(0, 2)), [
    { sessionUpdate: "user_message_chunk", content: { type: "text", text: "write a.txt" }, messageId: "u-1" },
    { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hm" }, messageId: "r1-0" },
    { sessionUpdate: "tool_call", toolCallId: "r1-1", title: "Write a.txt", kind: "edit", status: "in_progress", rawInput: { path: "a.txt" } },
    {
      sessionUpdate: "tool_call_update",
      toolCallId: "r1-1",
      status: "completed",
      content: [{ type: "content", content: { type: "text", text: "wrote" } }],
      rawOutput: "wrote",
    },
    { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "done" }, messageId: "r1-0" },
  ]);
});

test("with a live run, its turn (the last prompt and what follows) is taken off the replay, so nothing is shown twice", () => {
  const { finished, liveTurn } = splitLiveTurn(messages, true);
  assert.deepEqual(finished.map((m) => m.id), ["u-1", "r1-0"]);
  assert.deepEqual(liveTurn.map((m) => m.id), ["u-2", "r2-0"]);
  assert.deepEqual(splitLiveTurn(messages, false).liveTurn, []);
});

test("the history a prompt carries is the user and assistant texts", () => {
  assert.deepEqual(inputHistory(messages), [
    { id: "u-1", role: "user", content: "write a.txt" },
    { id: "r1-0", role: "assistant", content: "done" },
    { id: "u-2", role: "user", content: "slow 5000" },
    { id: "r2-0", role: "assistant", content: "started" },
  ]);
});
