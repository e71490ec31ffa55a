/**
 * AG-UI chunks (what an agentbox agent streams) to ACP `session/update`s (what an editor shows).
 *
 * Pure and stateful per turn: one {@link ChunkTranslator} reads one prompt turn (every AG-UI run
 * of it, the continuations after approvals included) or one followed run, in stream order. It
 * remembers each tool call's title, kind and arguments, so a result or a permission request
 * later in the turn names the call the editor already shows.
 */
import type { PlanEntry, SessionUpdate, StopReason, ToolCallUpdate, ToolKind } from "@agentclientprotocol/sdk";

/** One AG-UI event as the service sends it: `type` and the members of its type. */
export type AguiChunk = { type: string } & Record<string, unknown>;

/** An AG-UI interrupt, as `RUN_FINISHED`'s `outcome` (or the transcript) lists it. */
export interface AguiInterrupt {
  id: string;
  reason?: string;
  message?: string;
  toolCallId?: string;
  expiresAt?: string;
  metadata?: { kind?: string; toolName?: string; input?: unknown };
}

/** How a streamed AG-UI run ended. */
export type RunEnd =
  /** The turn is over; `stopReason` is `end_turn` unless the agent said otherwise (`acp.stop`). */
  | { kind: "finished"; stopReason: StopReason }
  /** The run waits for an answer: the AG-UI run ended at its first pending interrupt. */
  | { kind: "interrupt"; interrupts: AguiInterrupt[] }
  /** `RUN_ERROR`: the run failed, or was cancelled (`code` tells). */
  | { kind: "error"; message: string; code: string };

/** What one chunk gives: updates to send, in order, and the run's end if this chunk ended it. */
export interface Translated {
  updates: SessionUpdate[];
  end?: RunEnd;
}

const TOOL_KINDS: readonly ToolKind[] = [
  "read",
  "edit",
  "delete",
  "move",
  "search",
  "execute",
  "think",
  "fetch",
  "switch_mode",
  "other",
];

const STOP_REASONS: readonly StopReason[] = ["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"];

/** Tool names of the CLI harnesses (Claude Code, Codex) and bridged tools, by the kind an editor draws. */
const KIND_BY_NAME: ReadonlyArray<[RegExp, ToolKind]> = [
  [/^(bash|shell|command_execution|exec(ute)?|run|terminal)$/i, "execute"],
  [/^(read|read_?file|view|cat|ls|list_?dir)$/i, "read"],
  [/^(write|edit|multi_?edit|notebook_?edit|file_change|apply_patch|str_replace.*)$/i, "edit"],
  [/^(grep|glob|search|find|web_search|tool_search)$/i, "search"],
  [/^(web_?fetch|fetch|http)$/i, "fetch"],
  [/^(todo_?write|think|plan)$/i, "think"],
  [/^(delete|rm|remove)$/i, "delete"],
  [/^(move|mv|rename)$/i, "move"],
];

/**
 * A tool call's title and kind from its AG-UI name. The `acp` harness names calls
 * `<kind>: <title>` (`edit: Write a.txt`); other harnesses use the tool's own name (`Bash`,
 * `mcp__agentbox__weather`), whose kind is guessed from well-known names, else `other`.
 */
export function toolTitleAndKind(name: string): { title: string; kind: ToolKind } {
  const colon = name.indexOf(": ");
  if (colon > 0) {
    const kind = name.slice(0, colon) as ToolKind;
    if (TOOL_KINDS.includes(kind)) return { title: name.slice(colon + 2) || kind, kind };
  }
  if (TOOL_KINDS.includes(name as ToolKind)) return { title: name, kind: name as ToolKind };
  const bare = name.replace(/^mcp__[^_]+(?:_[^_]+)*?__/, "");
  for (const [pattern, kind] of KIND_BY_NAME) if (pattern.test(bare)) return { title: name, kind };
  return { title: name, kind: "other" };
}

/** Tool arguments as the editor's `rawInput`: the JSON they spell, else the text itself. */
export function parseArguments(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The text of an AG-UI tool result or message content: a string, or `{type:"text",text}` parts. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((p) => (p && typeof p === "object" && typeof (p as { text?: unknown }).text === "string" ? (p as { text: string }).text : ""))
      .join("");
  }
  return content === undefined || content === null ? "" : JSON.stringify(content);
}

interface CallState {
  title: string;
  kind: ToolKind;
  args: string;
  /** A rule or a person refused the call: its result is a failure. */
  refused: boolean;
  ended: boolean;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function text(sessionUpdate: "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk", delta: string, messageId?: string): SessionUpdate {
  const update = { sessionUpdate, content: { type: "text" as const, text: delta } } as SessionUpdate & { messageId?: string };
  if (messageId) update.messageId = messageId;
  return update;
}

/** A plan entry from an `acp.plan` entry (kept as sent) or a `codex.todo-list` item. */
function planEntry(item: unknown): PlanEntry | undefined {
  if (!item || typeof item !== "object") return undefined;
  const o = item as Record<string, unknown>;
  if (typeof o.content === "string") {
    return {
      content: o.content,
      priority: (["high", "medium", "low"].includes(o.priority as string) ? o.priority : "medium") as PlanEntry["priority"],
      status: (["pending", "in_progress", "completed"].includes(o.status as string) ? o.status : "pending") as PlanEntry["status"],
    };
  }
  if (typeof o.text === "string") {
    return { content: o.text, priority: "medium", status: o.completed === true ? "completed" : "pending" };
  }
  return undefined;
}

export class ChunkTranslator {
  private readonly calls = new Map<string, CallState>();
  private readonly roles = new Map<string, string>();
  private stopReason: StopReason = "end_turn";

  /** Translates one chunk. Unknown types, and the ones an editor has no use for, give nothing. */
  push(chunk: AguiChunk): Translated {
    switch (chunk.type) {
      case "TEXT_MESSAGE_START": {
        const id = str(chunk.messageId);
        if (id) this.roles.set(id, str(chunk.role) ?? "assistant");
        return { updates: [] };
      }
      case "TEXT_MESSAGE_CONTENT":
      case "TEXT_MESSAGE_CHUNK": {
        const delta = str(chunk.delta);
        if (!delta) return { updates: [] };
        const id = str(chunk.messageId);
        const role = (id && this.roles.get(id)) ?? str(chunk.role) ?? "assistant";
        return { updates: [text(role === "user" ? "user_message_chunk" : "agent_message_chunk", delta, id)] };
      }
      case "REASONING_MESSAGE_CONTENT":
      case "REASONING_MESSAGE_CHUNK":
      case "THINKING_TEXT_MESSAGE_CONTENT": {
        const delta = str(chunk.delta);
        return { updates: delta ? [text("agent_thought_chunk", delta, str(chunk.messageId))] : [] };
      }
      case "TOOL_CALL_START": {
        const id = str(chunk.toolCallId);
        if (!id) return { updates: [] };
        const { title, kind } = toolTitleAndKind(str(chunk.toolCallName) ?? "tool");
        this.calls.set(id, { title, kind, args: "", refused: false, ended: false });
        return { updates: [{ sessionUpdate: "tool_call", toolCallId: id, title, kind, status: "pending" }] };
      }
      case "TOOL_CALL_ARGS": {
        const call = this.calls.get(str(chunk.toolCallId) ?? "");
        if (call) call.args += str(chunk.delta) ?? "";
        return { updates: [] };
      }
      case "TOOL_CALL_END": {
        const id = str(chunk.toolCallId);
        const call = id ? this.calls.get(id) : undefined;
        if (!id || !call) return { updates: [] };
        return {
          updates: [{ sessionUpdate: "tool_call_update", toolCallId: id, status: "in_progress", rawInput: parseArguments(call.args) }],
        };
      }
      case "TOOL_CALL_RESULT": {
        const id = str(chunk.toolCallId);
        if (!id) return { updates: [] };
        const call = this.calls.get(id);
        if (call) call.ended = true;
        const output = contentText(chunk.content);
        return {
          updates: [
            {
              sessionUpdate: "tool_call_update",
              toolCallId: id,
              status: call?.refused ? "failed" : "completed",
              content: [{ type: "content", content: { type: "text", text: output } }],
              rawOutput: chunk.content,
            },
          ],
        };
      }
      case "CUSTOM":
        return this.custom(str(chunk.name) ?? "", chunk.value);
      case "RUN_FINISHED": {
        const outcome = chunk.outcome as { type?: string; interrupts?: AguiInterrupt[] } | undefined;
        if (outcome?.type === "interrupt" && Array.isArray(outcome.interrupts) && outcome.interrupts.length > 0) {
          return { updates: [], end: { kind: "interrupt", interrupts: outcome.interrupts } };
        }
        return { updates: [], end: { kind: "finished", stopReason: this.stopReason } };
      }
      case "RUN_ERROR":
        return {
          updates: [],
          end: { kind: "error", message: str(chunk.message) ?? "the run failed", code: str(chunk.code) ?? "agent-error" },
        };
      default:
        return { updates: [] };
    }
  }

  private custom(name: string, value: unknown): Translated {
    const v = (value && typeof value === "object" ? value : {}) as Record<string, unknown>;
    switch (name) {
      case "acp.plan":
        return { updates: [{ sessionUpdate: "plan", entries: (Array.isArray(v.entries) ? v.entries : []).map(planEntry).filter((e): e is PlanEntry => !!e) }] };
      case "codex.todo-list": {
        const items = Array.isArray(value) ? value : Array.isArray(v.items) ? v.items : [];
        return { updates: [{ sessionUpdate: "plan", entries: items.map(planEntry).filter((e): e is PlanEntry => !!e) }] };
      }
      case "acp.update":
        // An ACP update the harness passed on as sent (a kind it does not map, or a later version's):
        // the editor speaks ACP, so it gets it unchanged.
        return typeof v.sessionUpdate === "string" ? { updates: [v as unknown as SessionUpdate] } : { updates: [] };
      case "acp.stop":
        if (STOP_REASONS.includes(v.stopReason as StopReason)) this.stopReason = v.stopReason as StopReason;
        return { updates: [] };
      case "approval.decided": {
        if (v.approved !== false) return { updates: [] };
        // The decision may come before the call's result or just after it (the service logs the
        // result it hands the agent first): a call already shown completed is marked failed.
        const id = this.findCall(str(v.toolCallId), str(v.tool));
        const call = id ? this.calls.get(id) : undefined;
        if (!id || !call) return { updates: [] };
        call.refused = true;
        return call.ended ? { updates: [{ sessionUpdate: "tool_call_update", toolCallId: id, status: "failed" }] } : { updates: [] };
      }
      case "interrupt.requested": {
        // The raw run stream (a followed run) carries the interrupt inline: the call waits.
        const id = this.findCall(str(v.toolCallId), str(v.tool));
        return id ? { updates: [{ sessionUpdate: "tool_call_update", toolCallId: id, status: "pending" }] } : { updates: [] };
      }
      default:
        return { updates: [] };
    }
  }

  /** The call an interrupt or decision is about: by id when known, else the newest open call of that title. */
  private findCall(toolCallId: string | undefined, title: string | undefined): string | undefined {
    if (toolCallId && this.calls.has(toolCallId)) return toolCallId;
    if (!title) return undefined;
    const ids = [...this.calls.keys()].reverse();
    return ids.find((id) => !this.calls.get(id)!.ended && this.calls.get(id)!.title === title) ?? ids.find((id) => this.calls.get(id)!.title === title);
  }

  /**
   * The tool call a permission request for `interrupt` names. When the turn already showed that
   * call, the request refers to it (same id, title and kind); otherwise `announce` is a
   * `tool_call` to send first, so the editor never gets a request about a call it does not know.
   */
  permissionRequest(interrupt: AguiInterrupt): { toolCall: ToolCallUpdate; announce?: SessionUpdate } {
    const toolName = interrupt.metadata?.toolName ?? (interrupt as { tool?: string }).tool;
    const input = interrupt.metadata?.input ?? (interrupt as { arguments?: unknown }).arguments;
    const known = this.findCall(interrupt.toolCallId, toolName);
    if (known) {
      const call = this.calls.get(known)!;
      return { toolCall: { toolCallId: known, title: call.title, kind: call.kind, status: "pending", rawInput: input ?? parseArguments(call.args) } };
    }
    const { title, kind } = toolTitleAndKind(toolName ?? interrupt.message ?? "approval");
    const toolCallId = interrupt.toolCallId ?? `interrupt-${interrupt.id}`;
    this.calls.set(toolCallId, { title, kind, args: input === undefined ? "" : JSON.stringify(input), refused: false, ended: false });
    return {
      toolCall: { toolCallId, title, kind, status: "pending", rawInput: input },
      announce: { sessionUpdate: "tool_call", toolCallId, title, kind, status: "pending", rawInput: input },
    };
  }
}
