package dev.agentbox.api;

import dev.agentbox.agent.AgUiSegment;
import dev.agentbox.platform.LogText;
import dev.agentbox.quota.Slot;
import dev.agentbox.run.RunEventStream;
import dev.agentbox.run.RunService;
import dev.agentbox.run.harness.AgUiWire;
import dev.agentbox.run.store.LoggedChunk;
import dev.agentbox.run.store.RunRecordView;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.json.Json;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.io.StringReader;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * A run's chunks as SSE ({@code id: <offset>}, {@code event: <type>}, {@code data: <chunk>}), for
 * every endpoint that streams a run. The pump runs on a managed thread of its own; the request
 * thread returns at once. The run endpoints send each chunk as stored ({@link Form#STORED}); the
 * AG-UI agent endpoints send its AG-UI event ({@link Form#AG_UI}, {@link AgUiWire}).
 */
final class RunEventsSse {

    private static final Logger LOG = Logger.getLogger(RunEventsSse.class.getName());

    /** How a chunk is written as an event's data. */
    enum Form {
        /** The stored chunk, agentbox's envelope included. */
        STORED,
        /** Only the members AG-UI names for the event. */
        AG_UI;

        String data(LoggedChunk chunk) {
            return this == STORED
                    ? chunk.json()
                    : AgUiWire.of(Json.createReader(new StringReader(chunk.json())).readObject())
                            .toString();
        }
    }

    private RunEventsSse() {}

    /**
     * Pumps the run's log after {@code afterSeq} into the sink. The stream's quota slot is released
     * when the pump ends (terminal chunk, client gone — noticed by the heartbeat within a second or
     * two — or failure), and the viewer leaving is recorded (a durable run is then detached).
     */
    static void start(
            RunService runs,
            ManagedThreadFactory threads,
            RunRecordView run,
            long afterSeq,
            SseEventSink sink,
            Sse sse,
            Slot slot,
            Form form) {
        start(runs, threads, run, afterSeq, sink, sse, slot, form, null);
    }

    /**
     * As {@link #start(RunService, ManagedThreadFactory, RunRecordView, long, SseEventSink, Sse,
     * Slot, Form)}, sending only {@code segment}'s AG-UI run when it is not null: the stream ends
     * where the segment does (an interrupt), and the base run goes on (the segment's end is not a
     * viewer leaving: it never cancels or detaches the run).
     */
    static void start(
            RunService runs,
            ManagedThreadFactory threads,
            RunRecordView run,
            long afterSeq,
            SseEventSink sink,
            Sse sse,
            Slot slot,
            Form form,
            AgUiSegment segment) {
        runs.viewerAttached(run);
        RunEventStream stream = runs.stream();
        threads.newThread(() -> pump(runs, stream, run, afterSeq, sink, sse, slot, form, segment))
                .start();
    }

    private static void pump(
            RunService runs,
            RunEventStream stream,
            RunRecordView run,
            long afterSeq,
            SseEventSink sink,
            Sse sse,
            Slot slot,
            Form form,
            AgUiSegment segment) {
        RunEventStream.End end = RunEventStream.End.STOPPED;
        try {
            end =
                    stream.pump(
                            run.ref(),
                            afterSeq,
                            new RunEventStream.Sink() {
                                @Override
                                public boolean send(LoggedChunk chunk) {
                                    if (segment != null) {
                                        return sendSegment(sink, sse, segment, chunk);
                                    }
                                    return write(
                                            sink,
                                            sse.newEventBuilder()
                                                    .id(Long.toString(chunk.seq()))
                                                    .name(chunk.type())
                                                    .mediaType(MediaType.APPLICATION_JSON_TYPE)
                                                    .data(form.data(chunk))
                                                    .build());
                                }

                                @Override
                                public boolean heartbeat() {
                                    return write(sink, sse.newEventBuilder().comment("").build());
                                }

                                @Override
                                public void idle() {
                                    runs.maybeTakeOver(run);
                                }
                            });
        } catch (RuntimeException e) {
            LOG.warning("run " + LogText.quote(run.runId()) + ": event stream failed: " + e);
        } finally {
            slot.close();
            sink.close();
            try {
                runs.viewerLeft(
                        run,
                        end == RunEventStream.End.TERMINAL || (segment != null && segment.ended()));
            } catch (RuntimeException e) {
                LOG.warning(
                        "run "
                                + LogText.quote(run.runId())
                                + ": could not record the viewer leaving: "
                                + e);
            }
        }
    }

    /** The segment's events for {@code chunk}; {@code false} once it ended or the client left. */
    private static boolean sendSegment(
            SseEventSink sink, Sse sse, AgUiSegment segment, LoggedChunk chunk) {
        for (AgUiSegment.Event e :
                segment.accept(
                        chunk.seq(),
                        Json.createReader(new StringReader(chunk.json())).readObject())) {
            boolean sent =
                    write(
                            sink,
                            sse.newEventBuilder()
                                    .id(e.id())
                                    .name(e.type())
                                    .mediaType(MediaType.APPLICATION_JSON_TYPE)
                                    .data(e.data().toString())
                                    .build());
            if (!sent) {
                return false;
            }
        }
        return !segment.ended();
    }

    /**
     * A stream of one {@code RUN_ERROR} event: an AG-UI input the service refuses after it has been
     * accepted as a stream (an interrupt left unanswered, an answer after expiry).
     */
    static void refuse(SseEventSink sink, Sse sse, Slot slot, String code, String message) {
        try {
            write(
                    sink,
                    sse.newEventBuilder()
                            .name("RUN_ERROR")
                            .mediaType(MediaType.APPLICATION_JSON_TYPE)
                            .data(
                                    Json.createObjectBuilder()
                                            .add("type", "RUN_ERROR")
                                            .add("message", message)
                                            .add("code", code)
                                            .build()
                                            .toString())
                            .build());
        } finally {
            slot.close();
            sink.close();
        }
    }

    private static boolean write(SseEventSink sink, OutboundSseEvent event) {
        if (sink.isClosed()) {
            return false;
        }
        try {
            sink.send(event).toCompletableFuture().get(30, TimeUnit.SECONDS);
            return true;
        } catch (Exception clientGone) {
            return false;
        }
    }
}
