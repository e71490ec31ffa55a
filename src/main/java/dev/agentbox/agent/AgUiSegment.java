package dev.agentbox.agent;

import dev.agentbox.run.harness.AgUiWire;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongFunction;

/**
 * One AG-UI run of the agents endpoint, cut from its base run's stored log: the chunks after {@code
 * startSeq} up to the run's end or to the first {@code interrupt.requested} chunk, whichever comes
 * first. At that chunk the AG-UI run ends as AG-UI requires of an interrupt: every open text
 * message, tool call, reasoning message and step is closed, then {@code STATE_SNAPSHOT}, {@code
 * MESSAGES_SNAPSHOT} (the thread's messages up to the interrupt) and {@code RUN_FINISHED} whose
 * {@code outcome} is the interrupt ({@link AgUiInterrupts}); nothing follows. The base run goes on
 * waiting; the client's next input continues it as a new AG-UI run.
 *
 * <p>A continuation (a segment that does not start the base run) begins with its own {@code
 * RUN_STARTED} (its event id is {@code startSeq}, so a stream resumed after it does not repeat it),
 * carries its own runId on {@code RUN_FINISHED}/{@code RUN_ERROR}, and drops the ends and contents
 * of messages the previous segment already closed (so the AG-UI verifier never sees an event for a
 * message this run did not start).
 *
 * <p>Invariant: a pure function of the stored log and the snapshot's messages, so a replay of the
 * same AG-UI run ends the same way. Not thread-safe: one per stream.
 */
public final class AgUiSegment {

    /**
     * An event to send: its SSE id, its type and its AG-UI data. The id is the log sequence of the
     * chunk it comes from; the events the segment adds at an interrupt chunk {@code N} are {@code
     * N.1}, {@code N.2}, … — every id of a stream distinct, since clients drop an event whose id
     * they have seen ({@code @tanstack/ai-client} does).
     */
    public record Event(String id, String type, JsonObject data) {}

    /**
     * Which AG-UI run a stream shows.
     *
     * @param threadId the thread
     * @param runId the AG-UI run's id (the base run's own for a first segment)
     * @param startSeq where the segment starts in the base run's log (0 for a first segment)
     * @param continuation whether the segment continues a base run started by an earlier AG-UI run
     */
    public record Spec(String threadId, String runId, long startSeq, boolean continuation) {}

    private final Spec spec;
    private final LongFunction<JsonArray> messagesAt;
    private boolean started;
    private boolean ended;
    private final Set<String> text = new LinkedHashSet<>();
    private final Set<String> tools = new LinkedHashSet<>();
    private final Set<String> reasoningMessages = new LinkedHashSet<>();
    private final Set<String> reasoning = new LinkedHashSet<>();
    private final Set<String> steps = new LinkedHashSet<>();
    private final ApprovedToolCalls calls = new ApprovedToolCalls();

    /**
     * @param afterSeq where the stream resumes ({@code Last-Event-ID}); a continuation sends its
     *     {@code RUN_STARTED} only to a stream that starts before it
     * @param messagesAt the thread's AG-UI messages as of a log sequence (for the snapshot)
     */
    public AgUiSegment(Spec spec, long afterSeq, LongFunction<JsonArray> messagesAt) {
        this.spec = spec;
        this.messagesAt = messagesAt;
        this.started = !spec.continuation() || afterSeq >= spec.startSeq();
    }

    /** Where the pump starts reading: after the segment's start, or later on a resume. */
    public static long readAfter(Spec spec, long afterSeq) {
        return Math.max(afterSeq, spec.startSeq());
    }

    /** Whether the segment has ended at an interrupt: no further chunk is sent. */
    public boolean ended() {
        return ended;
    }

    /** The events for the stored chunk at {@code seq}; none once the segment has ended. */
    public List<Event> accept(long seq, JsonObject chunk) {
        List<Event> out = new ArrayList<>();
        if (ended) {
            return out;
        }
        if (!started) {
            started = true;
            out.add(
                    new Event(
                            Long.toString(spec.startSeq()),
                            "RUN_STARTED",
                            Json.createObjectBuilder()
                                    .add("type", "RUN_STARTED")
                                    .add("threadId", spec.threadId())
                                    .add("runId", spec.runId())
                                    .build()));
        }
        String type = chunk.getString("type", "");
        if (type.equals("CUSTOM")
                && AgUiInterrupts.REQUESTED.equals(chunk.getString("name", ""))
                && chunk.get("value") instanceof JsonObject interrupt) {
            end(seq, calls.withToolCallId(interrupt), out);
            return out;
        }
        calls.accept(type, chunk);
        if (!track(type, chunk)) {
            return out;
        }
        JsonObject wire = AgUiWire.of(chunk);
        if (spec.continuation() && (type.equals("RUN_FINISHED") || type.equals("RUN_ERROR"))) {
            JsonObjectBuilder b = Json.createObjectBuilder(wire);
            if (type.equals("RUN_FINISHED")) {
                b.add("threadId", spec.threadId()).add("runId", spec.runId());
            }
            wire = b.build();
        }
        out.add(new Event(Long.toString(seq), type, wire));
        return out;
    }

    /**
     * Records what {@code chunk} opens or closes; {@code false} when it must be dropped (it
     * continues something this segment did not start).
     */
    private boolean track(String type, JsonObject chunk) {
        return switch (type) {
            case "TEXT_MESSAGE_START" -> add(text, chunk, "messageId");
            case "TEXT_MESSAGE_CONTENT" -> has(text, chunk, "messageId");
            case "TEXT_MESSAGE_END" -> remove(text, chunk, "messageId");
            case "TOOL_CALL_START" -> add(tools, chunk, "toolCallId");
            case "TOOL_CALL_ARGS" -> has(tools, chunk, "toolCallId");
            case "TOOL_CALL_END" -> remove(tools, chunk, "toolCallId");
            case "REASONING_MESSAGE_START" -> add(reasoningMessages, chunk, "messageId");
            case "REASONING_MESSAGE_CONTENT" -> has(reasoningMessages, chunk, "messageId");
            case "REASONING_MESSAGE_END" -> remove(reasoningMessages, chunk, "messageId");
            case "REASONING_START" -> add(reasoning, chunk, "messageId");
            case "REASONING_END" -> remove(reasoning, chunk, "messageId");
            case "STEP_STARTED" -> add(steps, chunk, "stepName");
            case "STEP_FINISHED" -> remove(steps, chunk, "stepName");
            case "RUN_STARTED" -> !spec.continuation();
            default -> true;
        };
    }

    private static boolean add(Set<String> open, JsonObject chunk, String key) {
        if (chunk.get(key) instanceof JsonString s) {
            open.add(s.getString());
        }
        return true;
    }

    private boolean has(Set<String> open, JsonObject chunk, String key) {
        return !spec.continuation()
                || (chunk.get(key) instanceof JsonString s && open.contains(s.getString()));
    }

    private boolean remove(Set<String> open, JsonObject chunk, String key) {
        boolean was = chunk.get(key) instanceof JsonString s && open.remove(s.getString());
        return was || !spec.continuation();
    }

    private void end(long seq, JsonObject interrupt, List<Event> out) {
        ended = true;
        int first = out.size();
        for (String id : text) {
            out.add(closing(seq, "TEXT_MESSAGE_END", "messageId", id));
        }
        for (String id : tools) {
            out.add(closing(seq, "TOOL_CALL_END", "toolCallId", id));
        }
        for (String id : reasoningMessages) {
            out.add(closing(seq, "REASONING_MESSAGE_END", "messageId", id));
        }
        for (String id : reasoning) {
            out.add(closing(seq, "REASONING_END", "messageId", id));
        }
        for (String name : steps) {
            out.add(closing(seq, "STEP_FINISHED", "stepName", name));
        }
        out.add(
                new Event(
                        Long.toString(seq),
                        "STATE_SNAPSHOT",
                        Json.createObjectBuilder()
                                .add("type", "STATE_SNAPSHOT")
                                .add("snapshot", JsonObject.EMPTY_JSON_OBJECT)
                                .build()));
        out.add(
                new Event(
                        Long.toString(seq),
                        "MESSAGES_SNAPSHOT",
                        Json.createObjectBuilder()
                                .add("type", "MESSAGES_SNAPSHOT")
                                .add("messages", messagesAt.apply(seq))
                                .build()));
        out.add(
                new Event(
                        Long.toString(seq),
                        "RUN_FINISHED",
                        Json.createObjectBuilder()
                                .add("type", "RUN_FINISHED")
                                .add("threadId", spec.threadId())
                                .add("runId", spec.runId())
                                .add(
                                        "outcome",
                                        Json.createObjectBuilder()
                                                .add("type", "interrupt")
                                                .add(
                                                        "interrupts",
                                                        Json.createArrayBuilder()
                                                                .add(
                                                                        AgUiInterrupts.toAgUi(
                                                                                interrupt))))
                                .build()));
        for (int i = first; i < out.size(); i++) {
            Event e = out.get(i);
            out.set(i, new Event(seq + "." + (i - first + 1), e.type(), e.data()));
        }
    }

    /**
     * The log position a stream resumes after, from a {@code Last-Event-ID} this endpoint sent:
     * {@code N} is after chunk N; {@code N.k} (an event added at interrupt chunk N) is before chunk
     * N, so the interrupt's events are sent again (the client drops those it has).
     *
     * @return the text of a plain offset, for the caller's usual check
     */
    public static String resumePoint(String lastEventId) {
        if (lastEventId == null) {
            return null;
        }
        int dot = lastEventId.indexOf('.');
        if (dot <= 0) {
            return lastEventId;
        }
        try {
            long n = Long.parseLong(lastEventId.substring(0, dot));
            Integer.parseInt(lastEventId.substring(dot + 1));
            return Long.toString(Math.max(0, n - 1));
        } catch (NumberFormatException e) {
            return lastEventId;
        }
    }

    private static Event closing(long seq, String type, String key, String id) {
        return new Event(
                Long.toString(seq),
                type,
                Json.createObjectBuilder().add("type", type).add(key, id).build());
    }
}
