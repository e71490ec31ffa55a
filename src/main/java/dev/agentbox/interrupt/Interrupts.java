package dev.agentbox.interrupt;

import dev.agentbox.interrupt.store.Answer;
import dev.agentbox.interrupt.store.Interrupt;
import dev.agentbox.interrupt.store.InterruptStatus;
import dev.agentbox.interrupt.store.InterruptStore;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.run.RunGates;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.run.store.RunStore;
import dev.agentbox.tool.GateEvents;
import dev.agentbox.tool.ToolGate;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Interrupts on this server: the gate of a run's tool calls, the run's pending interrupts, answers
 * (which wake a wait on this server at once; a wait elsewhere sees them at its next poll), and the
 * cancels and expiry that any server applies. Runs reach it only as their {@link RunGates}.
 */
@ApplicationScoped
public class Interrupts implements RunGates {

    private static final Logger LOG = Logger.getLogger(Interrupts.class.getName());

    @Inject InterruptStore store;

    @Inject RunStore runs;

    @Inject Clock clock;

    @Inject
    @ConfigProperty(name = "agentbox.interrupts.ttl-ms")
    long ttlMs;

    @Inject
    @ConfigProperty(name = "agentbox.interrupts.poll-ms")
    long pollMs;

    @Inject
    @ConfigProperty(name = "agentbox.interrupts.max-waits")
    int maxWaits;

    @Resource ManagedScheduledExecutorService timer;

    private InterruptSettings settings;
    private InterruptWaits waits;

    @PostConstruct
    void init() {
        settings =
                new InterruptSettings(
                        Duration.ofMillis(ttlMs), Duration.ofMillis(pollMs), maxWaits);
        waits = new InterruptWaits(store, runs, clock, settings, timer);
    }

    @PreDestroy
    void stop() {
        waits.close();
    }

    /** The gate of {@code run}'s tool calls, reporting into {@code events}. */
    @Override
    public ToolGate gate(RunRecordView run, GateEvents events) {
        return new ApprovalGate(run, store, waits, events, clock, settings.ttl());
    }

    /**
     * Where {@code run}'s client tool calls wait for the AG-UI client, reporting into {@code
     * events}.
     */
    @Override
    public dev.agentbox.tool.ClientToolCalls clientTools(RunRecordView run, GateEvents events) {
        return new ClientToolWait(run, store, waits, events, clock, settings.ttl());
    }

    /** The interrupt {@code id} of {@code run}, if it has one. */
    public java.util.Optional<Interrupt> find(RunRecordView run, String id) {
        return store.find(run.ref(), id);
    }

    /** The run's pending interrupts, oldest first. */
    public List<Interrupt> pending(RunRecordView run) {
        return store.pending(run.ref());
    }

    /**
     * Answers interrupt {@code id} of {@code run}: {@code 404} when the run has no such interrupt,
     * {@code 409} when it was answered differently (or expired, or cancelled); the same answer
     * again succeeds.
     */
    public void answer(RunRecordView run, String id, InterruptAnswer answer) {
        Interrupt interrupt =
                store.find(run.ref(), id)
                        .orElseThrow(() -> ProblemException.notFound("No interrupt " + id));
        answer.requireFits(interrupt);
        if (run.harness() == dev.agentbox.run.harness.Harness.ACP
                && answer.payload().filter(p -> p.containsKey("arguments")).isPresent()) {
            // An ACP permission is answered by picking one of the agent's options: there is no
            // way to hand it edited arguments, so none are taken rather than silently dropped.
            throw ProblemException.invalidField(
                    "payload.arguments",
                    "cannot be given for an acp run: an ACP agent's permission is allowed or"
                            + " refused as asked");
        }
        Answer result =
                store.answer(run.ref(), id, answer.status(), answer.payload(), clock.instant());
        switch (result.outcome()) {
            case ANSWERED -> {
                LOG.info(
                        "run "
                                + run.runId()
                                + ": interrupt "
                                + id
                                + " "
                                + answer.status().wireName());
                result.interrupt().ifPresent(waits::settled);
            }
            case ALREADY -> {}
            case NOT_FOUND -> throw ProblemException.notFound("No interrupt " + id);
            case CONFLICT -> throw answered(id, result.interrupt().orElseThrow().status());
        }
    }

    /**
     * The {@code 409} for an interrupt that is no longer pending: its status as clients see it
     * ({@code cancelled} for an expired one, with {@code cancelReason: "expired"}).
     */
    static ProblemException answered(String id, InterruptStatus status) {
        Map<String, Object> extensions = new LinkedHashMap<>();
        extensions.put("interruptStatus", status.apiStatus());
        status.cancelReason().ifPresent(r -> extensions.put("cancelReason", r));
        return new ProblemException(
                ProblemCode.INTERRUPT_ANSWERED,
                "interrupt "
                        + id
                        + " is already "
                        + status.apiStatus()
                        + status.cancelReason().map(r -> " (" + r + ")").orElse(""),
                extensions,
                null);
    }

    /** Cancels the run's pending interrupts (the run is cancelled); how many. */
    public int cancel(RunRecordView run) {
        return cancel(run.ref());
    }

    /** Cancels the pending interrupts of the run {@code run} (cancelled or ended); how many. */
    @Override
    public int cancel(RunRef run) {
        List<Interrupt> pending = store.pending(run);
        if (pending.isEmpty()) {
            return 0;
        }
        int cancelled = store.cancelPending(run, clock.instant());
        if (cancelled > 0) {
            store.findAll(pending.stream().map(Interrupt::id).toList()).forEach(waits::settled);
        }
        return cancelled;
    }

    /**
     * The reaper's part, on any server: cancels at most {@code max} interrupts past their expiry
     * (stored {@code expired}) and cancels at most {@code max} pending ones of runs that have
     * ended.
     */
    public int sweep(int max) {
        return store.expireDue(clock.instant(), max)
                + store.cancelOfEndedRuns(clock.instant(), max);
    }
}
