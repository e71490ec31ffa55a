package dev.agentbox.run.store;

import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.journal.JournalId;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link RunStore#create} needs to record a new run. A new run is always {@link
 * RunStatus#RUNNING}, with no finishedAt, error, usage, detachedSince, cancelRequested or driver
 * epoch (DF-01).
 *
 * <p>{@code command} and {@code prompt} are what the agent was asked to do; they are stored for the
 * driver and must never contain a secret (secrets live only inside the sandbox).
 *
 * @param runId the client's run id, unique per tenant, 1..{@value #MAX_RUN_ID} characters
 * @param sandboxKey the sandbox the run uses, when already known at creation
 * @param journalNonce the run's exit-sentinel nonce (32 hex), random per run
 * @param maxDurationMs the run's duration bound; empty for none
 * @param fileEvents whether the run's log gets {@code file.changed} chunks
 * @param approvals the run's approval rules in their stored form (validated by the caller); empty
 *     for none
 * @param bridge the run's tool bridge ({@code dev.agentbox.run.RunBridge}): the SHA-256 of its
 *     token and its tools; empty for a run without a bridge
 */
public record NewRun(
        String tenant,
        String runId,
        String threadId,
        Harness harness,
        Instant startedAt,
        boolean durable,
        boolean detachOnDisconnect,
        boolean destroyOnComplete,
        Optional<String> command,
        Optional<String> prompt,
        Optional<String> sandboxKey,
        String journalNonce,
        Optional<Long> maxDurationMs,
        boolean fileEvents,
        JsonArray approvals,
        Optional<JsonObject> bridge) {

    public static final int MAX_TENANT = 128;

    /** Length of a journal nonce: 32 lowercase hex characters. */
    public static final int NONCE_LENGTH = JournalId.NONCE_LENGTH;

    public static final int MAX_RUN_ID = 255;
    public static final int MAX_THREAD_ID = 255;
    public static final int MAX_SANDBOX_KEY = 255;

    public NewRun {
        requireLength("tenant", tenant, MAX_TENANT);
        requireLength("runId", runId, MAX_RUN_ID);
        requireLength("threadId", threadId, MAX_THREAD_ID);
        Objects.requireNonNull(harness, "harness");
        Objects.requireNonNull(startedAt, "startedAt");
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(prompt, "prompt");
        Objects.requireNonNull(sandboxKey, "sandboxKey");
        sandboxKey.ifPresent(k -> requireLength("sandboxKey", k, MAX_SANDBOX_KEY));
        Objects.requireNonNull(journalNonce, "journalNonce");
        JournalId.requireNonce(journalNonce);
        Objects.requireNonNull(maxDurationMs, "maxDurationMs");
        maxDurationMs.ifPresent(
                ms -> {
                    if (ms <= 0) {
                        throw new IllegalArgumentException(
                                "maxDurationMs must be positive when set");
                    }
                });
        Objects.requireNonNull(approvals, "approvals");
        Objects.requireNonNull(bridge, "bridge");
    }

    /** A run with a fresh random journal nonce and no duration bound. */
    public NewRun(
            String tenant,
            String runId,
            String threadId,
            Harness harness,
            Instant startedAt,
            boolean durable,
            boolean detachOnDisconnect,
            boolean destroyOnComplete,
            Optional<String> command,
            Optional<String> prompt,
            Optional<String> sandboxKey) {
        this(
                tenant,
                runId,
                threadId,
                harness,
                startedAt,
                durable,
                detachOnDisconnect,
                destroyOnComplete,
                command,
                prompt,
                sandboxKey,
                randomNonce(),
                Optional.empty(),
                false,
                JsonValue.EMPTY_JSON_ARRAY,
                Optional.empty());
    }

    /**
     * A fresh exit-sentinel nonce ({@link JournalId#newNonce()}). Random per run (never derived
     * from the runId) so an agent cannot compute it and forge its own ending.
     */
    public static String randomNonce() {
        return JournalId.newNonce();
    }

    /**
     * A durable run with the API's defaults (detach on disconnect, keep the sandbox) and nothing
     * optional set.
     */
    public static NewRun durable(
            String tenant, String runId, String threadId, Harness harness, Instant startedAt) {
        return new NewRun(
                tenant,
                runId,
                threadId,
                harness,
                startedAt,
                true,
                true,
                false,
                Optional.empty(),
                Optional.empty(),
                Optional.empty());
    }

    static void requireLength(String field, String value, int max) {
        Objects.requireNonNull(value, field);
        if (value.isEmpty() || value.length() > max) {
            throw new IllegalArgumentException(field + " must be 1.." + max + " characters");
        }
    }
}
