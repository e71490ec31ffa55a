// A TanStack AI text adapter that calls no model: like a harness adapter it requires the sandbox
// capability, reads the handle `withSandbox` provided, and runs a script against it; what the
// script returns is streamed back as the assistant's text.
import { getSandbox, SandboxCapability } from "@tanstack/ai-sandbox";

export function scriptedSandboxAdapter(script) {
  return {
    kind: "text",
    name: "scripted-sandbox",
    model: "none",
    requires: [SandboxCapability],
    async *chatStream(options) {
      const handle = getSandbox(options.capabilities);
      const runId = options.runId ?? "run";
      const messageId = `m-${runId}`;
      const now = () => Date.now();
      yield { type: "RUN_STARTED", runId, threadId: options.threadId, timestamp: now() };
      const text = String(await script(handle, options));
      yield { type: "TEXT_MESSAGE_START", messageId, role: "assistant", timestamp: now() };
      yield { type: "TEXT_MESSAGE_CONTENT", messageId, delta: text, timestamp: now() };
      yield { type: "TEXT_MESSAGE_END", messageId, timestamp: now() };
      yield { type: "RUN_FINISHED", runId, finishReason: "stop", timestamp: now() };
    },
    async structuredOutput() {
      throw new Error("the scripted adapter has no structured output");
    },
  };
}
