package dev.agentbox.interrupt;

import dev.agentbox.interrupt.store.Interrupt;
import dev.agentbox.interrupt.store.InterruptStore;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.tool.ApprovalRules;
import dev.agentbox.tool.GateDecision;
import dev.agentbox.tool.GateEvents;
import dev.agentbox.tool.ToolCall;
import dev.agentbox.tool.ToolCallIds;
import dev.agentbox.tool.ToolGate;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The gate of one run's tool calls, by the approval rules stored with the run: {@code allow} runs
 * the call at once, {@code deny} refuses it, {@code ask} opens an interrupt and decides when it is
 * settled — {@code resolved} with {@code {"approved":true}} runs the call (with the person's {@code
 * arguments} when given), anything else refuses it ({@code approved:false}, {@code cancelled},
 * {@code expired}).
 *
 * <p>Idempotent on the call's key: asking again for a call (a successor after a takeover) finds the
 * interrupt the first ask opened and waits on it, or decides at once when it is already settled; it
 * never opens a second one. Every decision is reported as {@code approval.decided}, an opened
 * interrupt as {@code interrupt.requested} ({@link GateEvents}). A store that fails refuses the
 * call: a call is never run without the decision its rules require.
 */
public final class ApprovalGate implements ToolGate {

    private static final Logger LOG = Logger.getLogger(ApprovalGate.class.getName());

    static final String REASON = "approval";

    private final RunRecordView run;
    private final ApprovalRules rules;
    private final OpenInterrupts interrupts;
    private final InterruptWaits waits;
    private final GateEvents events;

    public ApprovalGate(
            RunRecordView run,
            InterruptStore store,
            InterruptWaits waits,
            GateEvents events,
            Clock clock,
            Duration ttl) {
        this.run = run;
        this.rules = ApprovalRules.fromJson(run.approvals());
        this.interrupts = new OpenInterrupts(run, store, events, clock, ttl);
        this.waits = waits;
        this.events = events;
    }

    @Override
    public CompletionStage<GateDecision> admit(ToolCall call) {
        if (!call.runId().equals(run.runId())) {
            return done(call, GateDecision.deny("not a call of this run"), "rule", null);
        }
        try {
            return switch (rules.decide(call.tool())) {
                case ALLOW -> done(call, GateDecision.allow(), "rule", null);
                case DENY ->
                        done(call, GateDecision.deny("denied by an approval rule"), "rule", null);
                case ASK -> ask(call);
            };
        } catch (RuntimeException e) {
            LOG.log(
                    Level.WARNING,
                    "run " + run.runId() + ": approval failed, refusing the call",
                    e);
            return done(call, GateDecision.deny("approval unavailable"), "fault", null);
        }
    }

    private CompletionStage<GateDecision> ask(ToolCall call) {
        String key = CallKeys.stored(call.callKey());
        Interrupt interrupt = interrupts.findOrOpen(call, key, REASON, Optional.empty());
        Optional<CompletableFuture<Interrupt>> settled = waits.await(interrupt);
        if (settled.isEmpty()) {
            return done(
                    call,
                    GateDecision.deny("too many calls wait for an answer on this server"),
                    "fault",
                    interrupt);
        }
        return settled.get()
                .handle(
                        (i, failure) -> {
                            if (failure != null) {
                                return emitted(
                                        call,
                                        GateDecision.deny("approval unavailable"),
                                        "fault",
                                        interrupt);
                            }
                            return decide(call, i);
                        });
    }

    private GateDecision decide(ToolCall call, Interrupt settled) {
        return switch (settled.status()) {
            case RESOLVED -> {
                JsonObject payload = settled.payload().orElse(JsonValue.EMPTY_JSON_OBJECT);
                if (payload.get("approved") != JsonValue.TRUE) {
                    yield emitted(call, GateDecision.deny("denied by a person"), "answer", settled);
                }
                GateDecision allow =
                        payload.get("arguments") instanceof JsonObject edited
                                ? GateDecision.allowWith(edited)
                                : GateDecision.allow();
                yield emitted(call, allow, "answer", settled);
            }
            case CANCELLED -> emitted(call, GateDecision.deny("cancelled"), "cancel", settled);
            case EXPIRED -> emitted(call, GateDecision.deny("expired"), "expiry", settled);
            case PENDING -> throw new IllegalStateException("a wait completed while pending");
        };
    }

    private CompletionStage<GateDecision> done(
            ToolCall call, GateDecision decision, String by, Interrupt interrupt) {
        return CompletableFuture.completedFuture(emitted(call, decision, by, interrupt));
    }

    private GateDecision emitted(
            ToolCall call, GateDecision decision, String by, Interrupt interrupt) {
        JsonObjectBuilder v =
                Json.createObjectBuilder()
                        .add("tool", call.tool())
                        // Names the call, so two calls of one tool decided alike are two chunks
                        // a successor can tell from one repeated (BridgedRepeats).
                        .add("callId", ToolCallIds.of(call.callKey()))
                        .add("approved", decision.allowed())
                        .add("by", by);
        if (interrupt != null) {
            v.add("interruptId", interrupt.id());
        }
        if (!decision.allowed()) {
            v.add("reason", decision.reason());
        }
        decision.arguments().ifPresent(a -> v.add("arguments", a));
        emit(GateEvents.APPROVAL_DECIDED, v.build());
        return decision;
    }

    private void emit(String name, JsonObject value) {
        try {
            events.custom(name, value);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "run " + run.runId() + ": " + name + " chunk not written", e);
        }
    }
}
