/**
 * A thread's transcript (`GET /agents/{agentId}?threadId=T`) as ACP updates, for `session/load`,
 * and as the history a prompt carries.
 *
 * The transcript holds one user message per run of the thread and the assistant message built
 * from that run's stored log, oldest first — the live run's included, as far as it got. The live
 * run is replayed from its own stream instead (see `front-door.ts`), so {@link splitLiveTurn}
 * takes its messages off the transcript: each update is sent once, and the editor sees the live
 * turn grow from its first event.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { parseArguments, toolTitleAndKind } from "./translate.js";

/** A part of a transcript message (`@tanstack/ai-client`'s `UIMessage` parts). */
export interface TranscriptPart {
  type: string;
  content?: unknown;
  id?: string;
  name?: string;
  arguments?: string;
  toolCallId?: string;
  state?: string;
}

/** A transcript message. */
export interface TranscriptMessage {
  id: string;
  role: string;
  parts: TranscriptPart[];
  createdAt?: string;
}

/** A message of a `RunAgentInput`: the thread's history as the service reads it. */
export interface InputMessage {
  id: string;
  role: "user" | "assistant";
  content: string;
}

function partText(part: TranscriptPart): string {
  return typeof part.content === "string" ? part.content : part.content == null ? "" : JSON.stringify(part.content);
}

/**
 * Splits the transcript into the finished turns and the live run's turn: when a run of the thread
 * is live it is the thread's newest (the front door never starts a second one beside it), so its
 * turn is the last user message and what follows it.
 */
export function splitLiveTurn(
  messages: readonly TranscriptMessage[],
  live: boolean,
): { finished: TranscriptMessage[]; liveTurn: TranscriptMessage[] } {
  if (!live) return { finished: [...messages], liveTurn: [] };
  let last = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === "user") {
      last = i;
      break;
    }
  }
  if (last < 0) return { finished: [...messages], liveTurn: [] };
  return { finished: messages.slice(0, last), liveTurn: messages.slice(last) };
}

/** The updates that show `messages` as a finished conversation, in order. */
export function transcriptUpdates(messages: readonly TranscriptMessage[]): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  const chunk = (sessionUpdate: "user_message_chunk" | "agent_message_chunk" | "agent_thought_chunk", text: string, messageId: string) => {
    if (text) updates.push({ sessionUpdate, content: { type: "text", text }, messageId } as SessionUpdate);
  };
  for (const message of messages) {
    for (const part of message.parts ?? []) {
      if (message.role === "user") {
        if (part.type === "text") chunk("user_message_chunk", partText(part), message.id);
        continue;
      }
      switch (part.type) {
        case "text":
          chunk("agent_message_chunk", partText(part), message.id);
          break;
        case "thinking":
          chunk("agent_thought_chunk", partText(part), message.id);
          break;
        case "tool-call": {
          if (!part.id) break;
          const { title, kind } = toolTitleAndKind(part.name ?? "tool");
          updates.push({
            sessionUpdate: "tool_call",
            toolCallId: part.id,
            title,
            kind,
            status: "in_progress",
            rawInput: parseArguments(part.arguments ?? ""),
          });
          break;
        }
        case "tool-result": {
          if (!part.toolCallId) break;
          const text = partText(part);
          updates.push({
            sessionUpdate: "tool_call_update",
            toolCallId: part.toolCallId,
            status: part.state === "error" ? "failed" : "completed",
            content: [{ type: "content", content: { type: "text", text } }],
            rawOutput: part.content,
          });
          break;
        }
      }
    }
  }
  return updates;
}

/** The user and assistant texts of `messages`, as a `RunAgentInput`'s earlier messages. */
export function inputHistory(messages: readonly TranscriptMessage[]): InputMessage[] {
  const history: InputMessage[] = [];
  for (const message of messages) {
    if (message.role !== "user" && message.role !== "assistant") continue;
    const content = (message.parts ?? [])
      .filter((p) => p.type === "text")
      .map(partText)
      .join(message.role === "user" ? "\n" : "");
    if (content) history.push({ id: message.id, role: message.role, content });
  }
  return history;
}
