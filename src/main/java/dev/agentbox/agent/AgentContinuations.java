package dev.agentbox.agent;

import dev.agentbox.agent.store.AgentTurn;
import dev.agentbox.agent.store.JpaAgentTurnStore;
import dev.agentbox.interrupt.InterruptAnswer;
import dev.agentbox.interrupt.Interrupts;
import dev.agentbox.interrupt.store.Interrupt;
import dev.agentbox.interrupt.store.InterruptStatus;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.run.RunService;
import dev.agentbox.run.store.LoggedChunk;
import dev.agentbox.run.store.RunRecordView;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * The AG-UI rules for a new input on a thread whose previous AG-UI run ended at an interrupt
 * (docs/api.md "Client tools and interrupts", behaviours AG-15..AG-19).
 *
 * <ul>
 *   <li>The interrupt that ended the previous AG-UI run must be answered: by a {@code resume} entry
 *       with its id, or — for a client tool — by a {@code tool} message with its {@code
 *       toolCallId}. Not answered while pending: {@code RUN_ERROR}. Past its expiry: {@code
 *       RUN_ERROR}. Answered differently before: {@code RUN_ERROR}.
 *   <li>Answers go through the same compare-and-set as {@code POST /runs/{runId}/interrupts/{id}},
 *       so the same answer twice is accepted and the waiting call gets exactly one.
 *   <li>The input then becomes a continuation turn: a new AG-UI run that streams the base run's log
 *       from the interrupt on; no new run is started.
 * </ul>
 */
@ApplicationScoped
public class AgentContinuations {

    /** How many chunks are read to find where the previous AG-UI run ended. */
    private static final int SCAN_PAGE = 1000;

    private static final int SCAN_MAX = 200_000;

    /** How long to wait for an opened interrupt's chunk to reach the log. */
    private static final long CHUNK_WAIT_MS = 5000;

    @Inject JpaAgentTurnStore turns;

    @Inject RunService runs;

    @Inject Interrupts interrupts;

    @Inject Clock clock;

    /** Why an input is refused: the AG-UI run is a lone {@code RUN_ERROR}. */
    public record Refusal(String code, String message) {}

    /** The outcome: a continuation turn (recorded), a refusal, or neither (a new run). */
    public record Outcome(Optional<AgentTurn> turn, Optional<Refusal> refusal) {
        static Outcome newRun() {
            return new Outcome(Optional.empty(), Optional.empty());
        }

        static Outcome refused(String code, String message) {
            return new Outcome(Optional.empty(), Optional.of(new Refusal(code, message)));
        }
    }

    /**
     * What to do with the interrupt that ended the previous AG-UI run: refuse the input, answer the
     * interrupt and continue ({@code answer}), or neither (a new run).
     */
    record Verdict(boolean answer, Optional<Refusal> refusal) {}

    /**
     * The AG-UI rules for the interrupt {@code x} that ended the previous AG-UI run, given whether
     * the input answers it, at {@code now}: an answer at or after its expiry is refused, and so is
     * no answer while it is pending; an answer otherwise goes to the compare-and-set (which refuses
     * a different earlier answer); no answer to one that expired or was answered elsewhere is a new
     * run.
     */
    static Verdict verdict(Interrupt x, boolean answered, java.time.Instant now) {
        boolean expired =
                x.status() == InterruptStatus.EXPIRED
                        || (x.pending() && !now.isBefore(x.expiresAt()));
        if (expired && answered) {
            return new Verdict(
                    false,
                    Optional.of(
                            new Refusal(
                                    "INTERRUPT_EXPIRED",
                                    "interrupt " + x.id() + " expired before it was answered")));
        }
        if (answered) {
            return new Verdict(true, Optional.empty());
        }
        if (x.pending() && !expired) {
            return new Verdict(
                    false,
                    Optional.of(
                            new Refusal(
                                    "INTERRUPT_PENDING",
                                    "interrupt "
                                            + x.id()
                                            + " of the previous run is pending: answer it with a"
                                            + " resume entry"
                                            + (x.toolCallId().isPresent()
                                                    ? " or a tool message for "
                                                            + x.toolCallId().get()
                                                    : ""))));
        }
        // Expired (the agent got an error result), or answered elsewhere (POST
        // /runs/{runId}/interrupts/{id}): nothing holds the thread, this is a new turn.
        return new Verdict(false, Optional.empty());
    }

    /** Where a segment ended: the interrupt chunk's sequence and the interrupt it carries. */
    record End(long seq, JsonObject interrupt) {}

    public Outcome plan(String tenant, String agentId, RunAgentInput input) {
        List<AgentTurn> latest = turns.thread(tenant, agentId, input.threadId(), 1);
        if (latest.isEmpty()) {
            return input.resume().isEmpty()
                    ? Outcome.newRun()
                    : Outcome.refused(
                            "INTERRUPT_NOT_FOUND", "resume: the thread has no interrupt to answer");
        }
        AgentTurn previous = latest.get(0);
        RunRecordView base;
        try {
            base = runs.get(tenant, previous.baseRunId());
        } catch (ProblemException gone) {
            return Outcome.newRun();
        }
        Optional<End> end = end(base, previous.startSeq());
        if (end.isEmpty()) {
            // The previous AG-UI run did not end at an interrupt (or it is still streaming).
            return input.resume().isEmpty() ? Outcome.newRun() : again(base, previous, input);
        }
        String id = end.get().interrupt().getString("id", "");
        Optional<Interrupt> found = interrupts.find(base, id);
        if (found.isEmpty()) {
            return Outcome.newRun();
        }
        Interrupt x = found.get();
        Optional<InterruptAnswer> answer = answerFor(x, input);
        Verdict verdict = verdict(x, answer.isPresent(), clock.instant());
        if (verdict.refusal().isPresent()) {
            return new Outcome(Optional.empty(), verdict.refusal());
        }
        if (!verdict.answer()) {
            return Outcome.newRun();
        }
        for (RunAgentInput.Resume r : input.resume()) {
            if (!r.interruptId().equals(id)) {
                return Outcome.refused(
                        "INTERRUPT_NOT_FOUND",
                        "resume: " + r.interruptId() + " is not the interrupt of the previous run");
            }
        }
        try {
            interrupts.answer(base, id, answer.get());
        } catch (ProblemException e) {
            return Outcome.refused(e.code().name(), e.getMessage());
        }
        return record(tenant, agentId, input, base, end.get().seq());
    }

    /**
     * A new input that repeats the answer the thread's latest continuation already gave: the same
     * answer is accepted again, and the new AG-UI run streams what that continuation streams.
     */
    private Outcome again(RunRecordView base, AgentTurn previous, RunAgentInput input) {
        if (!previous.continuation()) {
            return Outcome.refused(
                    "INTERRUPT_NOT_FOUND", "resume: the previous run ended at no interrupt");
        }
        for (RunAgentInput.Resume r : input.resume()) {
            Optional<Interrupt> i = interrupts.find(base, r.interruptId());
            if (i.isEmpty()) {
                return Outcome.refused(
                        "INTERRUPT_NOT_FOUND", "resume: no interrupt " + r.interruptId());
            }
            if (i.get().status() == InterruptStatus.EXPIRED) {
                return Outcome.refused(
                        "INTERRUPT_EXPIRED", "interrupt " + r.interruptId() + " expired");
            }
            try {
                interrupts.answer(base, r.interruptId(), mapped(i.get(), r));
            } catch (ProblemException e) {
                return Outcome.refused(e.code().name(), e.getMessage());
            }
        }
        return record(previous.tenant(), previous.agentId(), input, base, previous.startSeq());
    }

    private Outcome record(
            String tenant, String agentId, RunAgentInput input, RunRecordView base, long startSeq) {
        AgentTurn turn =
                new AgentTurn(
                        tenant,
                        input.runId(),
                        agentId,
                        input.threadId(),
                        input.userMessageId(),
                        input.prompt(),
                        clock.instant(),
                        base.runId(),
                        startSeq);
        turns.create(turn);
        return new Outcome(Optional.of(turn), Optional.empty());
    }

    /** The input's answer to {@code x}: a resume entry with its id, or a tool message. */
    private static Optional<InterruptAnswer> answerFor(Interrupt x, RunAgentInput input) {
        for (RunAgentInput.Resume r : input.resume()) {
            if (r.interruptId().equals(x.id())) {
                return Optional.of(mapped(x, r));
            }
        }
        if (x.reason().equals(AgUiInterrupts.CLIENT_TOOL) && x.toolCallId().isPresent()) {
            String result = input.toolResults().get(x.toolCallId().get());
            if (result != null) {
                return Optional.of(
                        new InterruptAnswer(
                                InterruptStatus.RESOLVED,
                                Optional.of(
                                        Json.createObjectBuilder().add("result", result).build())));
            }
        }
        return Optional.empty();
    }

    /**
     * A resume entry as an interrupt answer. An approval's payload is {@code true|false} or {@code
     * {"approved", "arguments"|"editedArgs"?}}; a client tool's is its output as the client sent it
     * ({@code {"result":…}} or {@code {"error":"…"}} taken as they are, anything else as the
     * result).
     */
    static InterruptAnswer mapped(Interrupt x, RunAgentInput.Resume r) {
        if (r.status() == InterruptStatus.CANCELLED) {
            return new InterruptAnswer(InterruptStatus.CANCELLED, Optional.empty());
        }
        JsonValue p = r.payload();
        if (x.reason().equals(AgUiInterrupts.APPROVAL)) {
            if (p == JsonValue.TRUE || p == JsonValue.FALSE) {
                return resolved(Json.createObjectBuilder().add("approved", p).build());
            }
            if (p instanceof JsonObject o) {
                var b = Json.createObjectBuilder();
                if (o.containsKey("approved")) {
                    b.add("approved", o.get("approved"));
                }
                JsonValue edited =
                        o.containsKey("arguments") ? o.get("arguments") : o.get("editedArgs");
                if (edited != null && edited != JsonValue.NULL) {
                    b.add("arguments", edited);
                }
                return resolved(b.build());
            }
            return resolved(JsonValue.EMPTY_JSON_OBJECT);
        }
        if (x.reason().equals(AgUiInterrupts.CLIENT_TOOL)) {
            if (p instanceof JsonObject o
                    && o.size() == 1
                    && (o.containsKey("result") || o.get("error") instanceof JsonString)) {
                return resolved(o);
            }
            return resolved(Json.createObjectBuilder().add("result", p).build());
        }
        return p instanceof JsonObject o
                ? resolved(o)
                : new InterruptAnswer(InterruptStatus.RESOLVED, Optional.empty());
    }

    private static InterruptAnswer resolved(JsonObject payload) {
        return new InterruptAnswer(InterruptStatus.RESOLVED, Optional.of(payload));
    }

    /**
     * Where the AG-UI run that started at {@code startSeq} of {@code base}'s log ended: the first
     * {@code interrupt.requested} chunk after it. An interrupt that is pending may be a moment from
     * its chunk (the driver appends it): waits up to {@value #CHUNK_WAIT_MS} ms for it then.
     */
    Optional<End> end(RunRecordView base, long startSeq) {
        long deadline = System.nanoTime() + CHUNK_WAIT_MS * 1_000_000;
        while (true) {
            Optional<End> found = scan(base, startSeq);
            if (found.isPresent()
                    || interrupts.pending(base).isEmpty()
                    || System.nanoTime() > deadline) {
                return found;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return found;
            }
        }
    }

    private Optional<End> scan(RunRecordView base, long startSeq) {
        long after = startSeq;
        for (int read = 0; read < SCAN_MAX; read += SCAN_PAGE) {
            List<LoggedChunk> page = runs.snapshot(base, after, SCAN_PAGE);
            for (LoggedChunk c : page) {
                if (c.type().equals("CUSTOM") && c.json().contains(AgUiInterrupts.REQUESTED)) {
                    JsonObject o = Json.createReader(new StringReader(c.json())).readObject();
                    if (AgUiInterrupts.REQUESTED.equals(o.getString("name", ""))
                            && o.get("value") instanceof JsonObject v) {
                        return Optional.of(new End(c.seq(), v));
                    }
                }
            }
            if (page.size() < SCAN_PAGE) {
                return Optional.empty();
            }
            after = page.get(page.size() - 1).seq();
        }
        return Optional.empty();
    }
}
