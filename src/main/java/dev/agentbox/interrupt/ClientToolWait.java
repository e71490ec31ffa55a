package dev.agentbox.interrupt;

import dev.agentbox.interrupt.store.Interrupt;
import dev.agentbox.interrupt.store.InterruptStore;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.tool.ClientToolCalls;
import dev.agentbox.tool.GateEvents;
import dev.agentbox.tool.ToolCall;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The calls of one run's client tools: each opens an interrupt (reason {@value #REASON}, the call's
 * AG-UI {@code toolCallId}) and waits for it as an approval does ({@link InterruptWaits}, same
 * store, same expiry). {@code resolved} with {@code {"result":…}} hands the agent the result (a
 * string as it is, other JSON as its text); {@code {"error":"…"}}, {@code cancelled} and {@code
 * expired} hand it an error result.
 *
 * <p>Idempotent on the call's key (suffixed {@code #client}, so a call that an {@code ask} rule
 * also holds keeps its approval apart): a successor asking again waits on the same interrupt.
 */
public final class ClientToolWait implements ClientToolCalls {

    private static final Logger LOG = Logger.getLogger(ClientToolWait.class.getName());

    /** The reason of a client tool's interrupt, as AG-UI clients know it. */
    public static final String REASON = "client_tool_input";

    private final RunRecordView run;
    private final OpenInterrupts interrupts;
    private final InterruptWaits waits;

    public ClientToolWait(
            RunRecordView run,
            InterruptStore store,
            InterruptWaits waits,
            GateEvents events,
            Clock clock,
            Duration ttl) {
        this.run = run;
        this.interrupts = new OpenInterrupts(run, store, events, clock, ttl);
        this.waits = waits;
    }

    @Override
    public CompletionStage<Answer> call(ToolCall call, String toolCallId) {
        try {
            String key = CallKeys.stored(call.callKey() + "#client");
            Interrupt interrupt = interrupts.findOrOpen(call, key, REASON, Optional.of(toolCallId));
            Optional<CompletableFuture<Interrupt>> settled = waits.await(interrupt);
            if (settled.isEmpty()) {
                return done(new Answer("too many calls wait for an answer on this server", true));
            }
            return settled.get()
                    .handle(
                            (i, failure) ->
                                    failure != null
                                            ? new Answer("client tool unavailable", true)
                                            : answer(i));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "run " + run.runId() + ": client tool call failed", e);
            return done(new Answer("client tool unavailable", true));
        }
    }

    static Answer answer(Interrupt settled) {
        return switch (settled.status()) {
            case RESOLVED -> {
                JsonObject p = settled.payload().orElse(JsonValue.EMPTY_JSON_OBJECT);
                if (p.get("error") instanceof JsonString e) {
                    yield new Answer(e.getString(), true);
                }
                JsonValue result = p.getOrDefault("result", JsonValue.NULL);
                yield new Answer(
                        result instanceof JsonString s ? s.getString() : result.toString(), false);
            }
            case CANCELLED -> new Answer("the client cancelled the tool call", true);
            case EXPIRED -> new Answer("the client did not answer in time (expired)", true);
            case PENDING -> throw new IllegalStateException("a wait completed while pending");
        };
    }

    /** The payload of a client tool's answer: {@code {"result":…}}. */
    public static JsonObject result(JsonValue result) {
        return Json.createObjectBuilder().add("result", result).build();
    }

    private static CompletionStage<Answer> done(Answer a) {
        return CompletableFuture.completedFuture(a);
    }
}
