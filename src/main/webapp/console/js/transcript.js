// A run's chunks as a chat client shows them: assistant text growing as it streams, tool calls
// with their arguments and results (collapsible), service notes and errors. Only textContent
// and DOM building: an agent's output is hostile data.
import { h } from "./dom.js";

export class Transcript {
  constructor(root) {
    this.root = root;
    this.messages = new Map(); // messageId → text element
    this.tools = new Map(); // toolCallId → {args, result, summary, details}
  }

  add(chunk) {
    const handler = this[chunk.type];
    if (handler) handler.call(this, chunk);
    else if (chunk.type?.startsWith("REASONING_") || chunk.type?.startsWith("THINKING_")) this.reasoning(chunk);
  }

  RUN_STARTED() {
    this.note("Run started");
  }

  TEXT_MESSAGE_START(c) {
    this.message(c.messageId, c.role ?? "assistant");
  }

  TEXT_MESSAGE_CONTENT(c) {
    this.message(c.messageId, "assistant").append(c.delta ?? "");
  }

  TEXT_MESSAGE_CHUNK(c) {
    this.message(c.messageId, c.role ?? "assistant").append(c.delta ?? "");
  }

  TEXT_MESSAGE_END(c) {
    this.messages.get(c.messageId)?.closest(".message")?.classList.add("done");
  }

  TOOL_CALL_START(c) {
    this.tool(c.toolCallId, c.toolCallName);
  }

  TOOL_CALL_ARGS(c) {
    this.tool(c.toolCallId).args.append(c.delta ?? "");
  }

  TOOL_CALL_CHUNK(c) {
    this.tool(c.toolCallId, c.toolCallName).args.append(c.delta ?? "");
  }

  TOOL_CALL_END(c) {
    const t = this.tool(c.toolCallId);
    t.args.textContent = pretty(t.args.textContent);
  }

  TOOL_CALL_RESULT(c) {
    const t = this.tool(c.toolCallId);
    const content = typeof c.content === "string" ? c.content : JSON.stringify(c.content);
    t.result.textContent = pretty(content ?? "");
    t.resultBox.hidden = false;
    t.details.classList.add("answered");
  }

  CUSTOM(c) {
    if (c.name === "agent.text") this.note(String(c.value), "agent-text");
    else this.note(`${c.name}: ${JSON.stringify(c.value)}`, "custom");
  }

  RUN_FINISHED() {
    this.note("Run finished", "finished");
  }

  RUN_ERROR(c) {
    this.root.append(
      h(
        "div",
        { class: "run-error", role: "alert" },
        h("strong", {}, c.code ? `Run error (${c.code})` : "Run error"),
        h("p", {}, c.message ?? ""),
      ),
    );
  }

  reasoning(c) {
    if (c.delta) this.note(c.delta, "reasoning");
  }

  message(id, role) {
    let text = this.messages.get(id);
    if (!text) {
      text = h("div", { class: "text" });
      this.root.append(
        h("article", { class: `message role-${role}`, "aria-label": `${role} message` }, h("div", { class: "who" }, role), text),
      );
      this.messages.set(id, text);
    }
    return text;
  }

  tool(id, name) {
    let t = this.tools.get(id);
    if (!t) {
      const args = h("pre", { class: "args" });
      const result = h("pre", { class: "result" });
      const resultBox = h("div", { hidden: true }, h("div", { class: "label" }, "Result"), result);
      const details = h(
        "details",
        { class: "tool" },
        h("summary", {}, "Tool call: ", h("code", {}, name ?? "?")),
        h("div", { class: "label" }, "Arguments"),
        args,
        resultBox,
      );
      this.root.append(details);
      t = { args, result, resultBox, details };
      this.tools.set(id, t);
    }
    return t;
  }

  note(text, kind = "") {
    this.root.append(h("p", { class: `note ${kind}` }, text));
  }
}

function pretty(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
