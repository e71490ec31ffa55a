package dev.agentbox.run;

import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.run.harness.Chunks;
import dev.agentbox.run.store.FinishResult;
import dev.agentbox.run.store.RunError;
import dev.agentbox.run.store.RunFailure;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunStatus;
import dev.agentbox.run.store.StaleEpochException;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What a driver adds to the run-write protocol ({@link RunWriter}), whose claim it writes through
 * and nothing else:
 *
 * <ul>
 *   <li>for a successor, suppresses what the stored log already holds ({@link Alignment});
 *   <li>counts the service chunks at the log's end, after its last journal chunk, so that what can
 *       wait (file changes) keeps the row within what a later takeover's replay passes over ({@link
 *       #outOfBandRoom});
 *   <li>records how the driver's writing ended, for a caller that drove it synchronously;
 *   <li>records an unexpected failure as the run's end, best effort.
 * </ul>
 */
final class DriverWriter {

    private static final Logger LOG = Logger.getLogger(DriverWriter.class.getName());

    private final RunContext ctx;
    private final RunRecordView run;
    private RunWriter.Claim claim;
    private Alignment alignment;
    private BridgedRepeats bridgedRepeats;
    private RunDriver.Ending ending = RunDriver.Ending.NOT_CLAIMED;
    private RunStatus endStatus;

    /** Service chunks at the end of the log, after its last journal chunk. */
    private int outOfBandInRow;

    DriverWriter(RunContext ctx, RunRecordView run) {
        this.ctx = ctx;
        this.run = run;
    }

    /** The driver claimed the run; {@code alignment} is set for a successor. */
    void claimed(RunWriter.Claim claim, Alignment alignment) {
        this.claim = claim;
        this.alignment = alignment;
        this.bridgedRepeats = alignment == null ? null : new BridgedRepeats(alignment.stored());
        this.outOfBandInRow = alignment == null ? 0 : alignment.trailingServiceChunks();
    }

    /**
     * How many more service chunks the log may take before the agent's next journal chunk: a
     * takeover's replay passes over at most {@value Alignment#MAX_OUT_OF_BAND_SKIP} in a row. Tool
     * bridge chunks are written regardless (a call is not delayed); file changes wait.
     */
    int outOfBandRoom() {
        return Math.max(0, Alignment.MAX_OUT_OF_BAND_SKIP - outOfBandInRow);
    }

    /** The driver's epoch; 0 before it claimed the run. */
    long epoch() {
        return claim == null ? 0 : claim.epoch();
    }

    /**
     * Stops a driver whose lease is lost even while its agent is silent: without it the driver
     * would notice only at its next append, and hold its place on this server until then.
     *
     * @throws RunWriter.LeaseLostException when the lease is lost
     */
    void checkLease() {
        if (claim != null && claim.leaseLost()) {
            throw new RunWriter.LeaseLostException("lease of run " + run.runId() + " lost");
        }
    }

    RunDriver.Ending ending() {
        return ending;
    }

    void ending(RunDriver.Ending e) {
        ending = e;
    }

    Optional<RunStatus> endStatus() {
        return Optional.ofNullable(endStatus);
    }

    /**
     * Appends what the log does not hold yet: everything for a first driver, the aligned remainder
     * for a successor.
     */
    void emit(List<JsonObject> chunks) {
        List<JsonObject> remainder = aligned(chunks);
        if (!remainder.isEmpty()) {
            append(remainder);
        }
    }

    /**
     * Appends chunks the service writes on its own account ({@link ServiceChunks}, e.g. {@code
     * file.changed}), past alignment: a replay never reproduces them, so a successor appends them
     * as they come, after whatever the log holds — between journal chunks, never instead of one.
     */
    void emitService(List<JsonObject> chunks) {
        if (!chunks.isEmpty()) {
            append(chunks);
        }
    }

    /**
     * Appends the tool bridge's and the gate's chunks ({@link RunBridgeEvents}) as service chunks;
     * a successor drops those its predecessor already stored ({@link BridgedRepeats}).
     */
    void emitBridged(List<JsonObject> chunks) {
        emitService(bridgedRepeats == null ? chunks : bridgedRepeats.notStored(chunks));
    }

    /**
     * Whether this successor is still replaying what the stored log holds: until then it appends no
     * service chunks either, so a replay that diverges has written nothing.
     */
    boolean replaying() {
        return alignment != null && !alignment.journalCaughtUp();
    }

    /** The chunks the stored log does not hold yet. */
    List<JsonObject> aligned(List<JsonObject> chunks) {
        if (alignment == null) {
            return chunks;
        }
        List<JsonObject> remainder = new ArrayList<>();
        for (JsonObject c : chunks) {
            alignment.offer(c).ifPresent(remainder::add);
        }
        return remainder;
    }

    /** The replay is over: a replay shorter than the stored log is a divergence. */
    void replayEnded() {
        if (alignment != null) {
            alignment.finish();
        }
    }

    private void append(List<JsonObject> chunks) {
        claim.append(chunks);
        for (JsonObject c : chunks) {
            outOfBandInRow = Chunks.isServiceChunk(c) ? outOfBandInRow + 1 : 0;
        }
    }

    /** Appends the terminal chunk(s), then the terminal record, both fenced by the epoch. */
    void finish(
            String label, List<JsonObject> terminal, RunStatus status, Optional<RunError> error) {
        FinishResult result = claim.finish(terminal, status, error);
        if (result == FinishResult.FINISHED) {
            ending = RunDriver.Ending.FINISHED;
            endStatus = status;
        } else if (result == FinishResult.STALE_EPOCH) {
            ending = RunDriver.Ending.FENCED_OUT;
        }
        LOG.info(
                label
                        + ": "
                        + status.wireName()
                        + " ("
                        + result
                        + ")"
                        + error.map(e -> ": " + e.message()).orElse(""));
    }

    /**
     * Ends the run {@code failed} with {@code failure}: one {@code RUN_ERROR} chunk, then the
     * record.
     */
    void fail(String label, RunFailure failure, String message) {
        RunError error = failure.error(message);
        ChunkFactory chunks = new ChunkFactory(run.runId(), run.threadId(), ctx.clock()::millis);
        finish(
                label,
                List.of(chunks.runError(message, failure.code())),
                RunStatus.FAILED,
                Optional.of(error));
    }

    /**
     * Records an unexpected failure as the run's end, retrying a few times; quiet once fenced out.
     */
    void failQuietly(String label, RunError error) {
        if (claim == null) {
            return;
        }
        ChunkFactory chunks = new ChunkFactory(run.runId(), run.threadId(), ctx.clock()::millis);
        for (int attempt = 1; attempt <= 3; attempt++) {
            try {
                finish(
                        label,
                        List.of(
                                chunks.runError(
                                        error.message(),
                                        error.code().orElse(RunFailure.INTERNAL_ERROR.code()))),
                        RunStatus.FAILED,
                        Optional.of(error));
                return;
            } catch (StaleEpochException e) {
                return;
            } catch (RuntimeException e) {
                LOG.log(
                        Level.SEVERE,
                        label + ": could not record the failure (attempt " + attempt + "/3)",
                        e);
                try {
                    Thread.sleep(500L * attempt);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
