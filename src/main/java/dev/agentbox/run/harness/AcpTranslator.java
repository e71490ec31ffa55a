package dev.agentbox.run.harness;

import dev.agentbox.run.harness.AcpConversation.Step;
import dev.agentbox.run.harness.AcpMessages.ContentChunk;
import dev.agentbox.run.harness.AcpMessages.ToolCallContent;
import dev.agentbox.run.harness.AcpMessages.ToolCallUpdate;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * The {@code acp} harness: the agent's stdout is ACP JSON-RPC, one message a line ({@link
 * AcpConversation} reads it), and its session updates become AG-UI chunks.
 *
 * <ul>
 *   <li>{@code agent_message_chunk} (text) → {@code TEXT_MESSAGE_*}, one message while chunks
 *       follow each other; {@code agent_thought_chunk} → one reasoning span likewise.
 *   <li>{@code tool_call} → {@code TOOL_CALL_START/ARGS/END} named by its kind and title, with its
 *       {@code rawInput} as arguments; the update that ends it ({@code completed}, {@code failed})
 *       → {@code TOOL_CALL_RESULT} with its text and diffs.
 *   <li>{@code plan} → {@code CUSTOM acp.plan} (the entries); every other update, a later version's
 *       included, and updates of a tool call that add nothing above → {@code CUSTOM acp.update}
 *       with the update; a loaded session's replayed history → nothing.
 *   <li>The session → {@code CUSTOM acp.session {"sessionId","continued"}}; a stop reason other
 *       than {@code end_turn} and {@code cancelled} → {@code CUSTOM acp.stop {"stopReason"}}; a
 *       step the agent refused → {@code RUN_ERROR agent-error} with its message; an agent that
 *       exits 0 without answering the prompt → {@code RUN_ERROR agent-error}.
 *   <li>A line that is no JSON-RPC message (a line over the reader's cap arrives cut, and is one) →
 *       {@code CUSTOM agent.output {"line"}}, its first {@value #MAX_REPORTED_CHARS} characters.
 * </ul>
 */
final class AcpTranslator extends TranslatorBase {

    public static final String SESSION = "acp.session";
    public static final String PLAN = "acp.plan";
    public static final String UPDATE = "acp.update";
    public static final String STOP = "acp.stop";

    private final AcpConversation conversation;
    private final Map<String, String> toolCalls = new HashMap<>();
    private final Set<String> resulted = new HashSet<>();
    private String reasoningSpan;
    private String reasoningMessage;
    private boolean answered;

    AcpTranslator(String runId, String threadId, LongSupplier timestamps, AcpPlan plan) {
        super(runId, threadId, timestamps);
        this.conversation = new AcpConversation(plan);
    }

    @Override
    protected void translate(String line, Out out) {
        for (Step step : conversation.onLine(line)) {
            if (step instanceof Step.Opened o) {
                closeReasoning(out);
                out.emit(
                        chunks.custom(
                                SESSION,
                                Json.createObjectBuilder()
                                        .add("sessionId", o.sessionId())
                                        .add("continued", o.continued())
                                        .build()));
            } else if (step instanceof Step.Answered a) {
                answered = true;
                if (!a.stopReason().equals("end_turn") && !a.stopReason().equals("cancelled")) {
                    closeReasoning(out);
                    out.emit(
                            chunks.custom(
                                    STOP,
                                    Json.createObjectBuilder()
                                            .add("stopReason", a.stopReason())
                                            .build()));
                }
            } else if (step instanceof Step.Failed f) {
                out.emit(chunks.runError(f.message(), AGENT_ERROR));
            } else if (step instanceof Step.Update u) {
                if (!u.replayed()) {
                    update(u.update(), u.kind(), out);
                }
            } else if (step instanceof Step.NotProtocol p) {
                closeReasoning(out);
                out.emit(chunks.custom(CommandTranslator.AGENT_TEXT, notProtocol(p.line())));
            }
            // Sends, the agent's requests and the end are the client's (AcpClient).
        }
    }

    /** At most this much of a line that is no JSON-RPC message is reported. */
    static final int MAX_REPORTED_CHARS = 4096;

    /** The line, cut to {@value #MAX_REPORTED_CHARS} characters (never half a surrogate pair). */
    static String notProtocol(String line) {
        if (line.length() <= MAX_REPORTED_CHARS) {
            return line;
        }
        int to = MAX_REPORTED_CHARS;
        if (Character.isHighSurrogate(line.charAt(to - 1))) {
            to--;
        }
        return line.substring(0, to) + " …";
    }

    private void update(JsonObject update, String kind, Out out) {
        switch (kind) {
            case "agent_message_chunk" -> {
                String text = text(update);
                if (text != null) {
                    closeReasoning(out);
                    if (!text.isEmpty()) {
                        out.appendText(text);
                    }
                    return;
                }
            }
            case "agent_thought_chunk" -> {
                String text = text(update);
                if (text != null) {
                    if (!text.isEmpty()) {
                        thought(text, out);
                    }
                    return;
                }
            }
            case "tool_call" -> {
                ToolCallUpdate call = AcpMessages.read(update, ToolCallUpdate.class).orElse(null);
                if (call != null
                        && call.toolCallId() != null
                        && !toolCalls.containsKey(call.toolCallId())) {
                    closeReasoning(out);
                    String id = ids.next();
                    toolCalls.put(call.toolCallId(), id);
                    out.toolCall(id, name(call), arguments(call.rawInput()));
                    result(call, out);
                    return;
                }
            }
            case "tool_call_update" -> {
                ToolCallUpdate call = AcpMessages.read(update, ToolCallUpdate.class).orElse(null);
                if (call != null
                        && toolCalls.containsKey(call.toolCallId())
                        && !resulted.contains(call.toolCallId())
                        && ended(call.status())) {
                    closeReasoning(out);
                    result(call, out);
                    return;
                }
            }
            case "plan" -> {
                closeReasoning(out);
                JsonValue entries = update.get("entries");
                out.emit(
                        chunks.custom(
                                PLAN,
                                Json.createObjectBuilder()
                                        .add(
                                                "entries",
                                                entries == null
                                                        ? Json.createArrayBuilder().build()
                                                        : entries)
                                        .build()));
                return;
            }
            default -> {}
        }
        closeReasoning(out);
        out.emit(chunks.custom(UPDATE, update));
    }

    private void result(ToolCallUpdate call, Out out) {
        if (!ended(call.status())) {
            return;
        }
        resulted.add(call.toolCallId());
        out.emit(
                chunks.toolCallResult(
                        ids.next(), toolCalls.get(call.toolCallId()), resultText(call)));
    }

    private static boolean ended(String status) {
        return "completed".equals(status) || "failed".equals(status);
    }

    /** The call's name: its kind and title ({@code edit: Write a.txt}), whichever it has. */
    private static String name(ToolCallUpdate call) {
        String kind = call.kind() == null ? "" : call.kind();
        String title = call.title() == null ? "" : call.title();
        if (kind.isEmpty()) {
            return title.isEmpty() ? "tool" : title;
        }
        return title.isEmpty() ? kind : kind + ": " + title;
    }

    private static String arguments(JsonValue raw) {
        if (raw == null || raw == JsonValue.NULL) {
            return "";
        }
        if (raw instanceof JsonObject o && o.isEmpty()) {
            return "";
        }
        return raw.toString();
    }

    /** The text of a tool call's result: its text blocks, its diffs, else its raw output. */
    static String resultText(ToolCallUpdate call) {
        StringBuilder sb = new StringBuilder();
        if (call.content() != null) {
            for (ToolCallContent c : call.content()) {
                if (c == null || c.type() == null) {
                    continue;
                }
                if (sb.length() > 0) {
                    sb.append('\n');
                }
                if (c.type().equals("content")
                        && c.content() != null
                        && c.content().text() != null) {
                    sb.append(c.content().text());
                } else if (c.type().equals("diff")) {
                    sb.append(diff(c));
                }
            }
        }
        if (sb.length() == 0 && call.rawOutput() != null && call.rawOutput() != JsonValue.NULL) {
            sb.append(
                    call.rawOutput() instanceof JsonString s
                            ? s.getString()
                            : call.rawOutput().toString());
        }
        if (sb.length() == 0 && "failed".equals(call.status())) {
            sb.append("failed");
        }
        return sb.toString();
    }

    /** A diff as unified-diff text: every old line removed, every new line added. */
    static String diff(ToolCallContent c) {
        StringBuilder sb = new StringBuilder();
        String path = c.path() == null ? "" : c.path();
        sb.append("--- ").append(c.oldText() == null ? "/dev/null" : path).append('\n');
        sb.append("+++ ").append(path).append('\n');
        if (c.oldText() != null && !c.oldText().isEmpty()) {
            for (String l : c.oldText().split("\n", -1)) {
                sb.append('-').append(l).append('\n');
            }
        }
        if (c.newText() != null && !c.newText().isEmpty()) {
            for (String l : c.newText().split("\n", -1)) {
                sb.append('+').append(l).append('\n');
            }
        }
        return sb.toString().stripTrailing();
    }

    private static String text(JsonObject update) {
        ContentChunk c = AcpMessages.read(update, ContentChunk.class).orElse(null);
        if (c == null || c.content() == null || !"text".equals(c.content().type())) {
            return null;
        }
        return c.content().text() == null ? "" : c.content().text();
    }

    private void thought(String text, Out out) {
        if (reasoningSpan == null) {
            reasoningSpan = ids.next();
            reasoningMessage = ids.next();
            out.emit(chunks.reasoningStart(reasoningSpan));
            out.emit(chunks.reasoningMessageStart(reasoningMessage));
        }
        out.emit(chunks.reasoningMessageContent(reasoningMessage, text));
    }

    private void closeReasoning(Out out) {
        if (reasoningSpan != null) {
            String span = reasoningSpan;
            String message = reasoningMessage;
            reasoningSpan = null;
            reasoningMessage = null;
            out.emit(chunks.reasoningMessageEnd(message));
            out.emit(chunks.reasoningEnd(span));
        }
    }

    @Override
    protected JsonObject finished() {
        if (!answered) {
            return chunks.runError(
                    "the ACP agent exited before it answered the prompt", AGENT_ERROR);
        }
        return super.finished();
    }
}
