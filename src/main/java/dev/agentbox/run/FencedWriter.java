package dev.agentbox.run;

import dev.agentbox.platform.lease.HeldLease;
import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.run.store.FinishResult;
import dev.agentbox.run.store.RunError;
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
 * A driver's only way to write a run: chunk appends and the terminal record, each fenced by
 * the driver's epoch (the store compares it under the claim row's lock) and refused at once
 * once the driver lease could not be renewed. For a successor it also suppresses what the
 * stored log already holds ({@link Alignment}). Records how the driver's writing ended.
 */
final class FencedWriter {

    private static final Logger LOG = Logger.getLogger(FencedWriter.class.getName());

    private final RunContext ctx;
    private final RunRecordView run;
    private HeldLease lease;
    private long epoch;
    private Alignment alignment;
    private RunDriver.Ending ending = RunDriver.Ending.NOT_CLAIMED;
    private RunStatus endStatus;

    FencedWriter(RunContext ctx, RunRecordView run) {
        this.ctx = ctx;
        this.run = run;
    }

    /** The driver holds {@code lease} and claimed {@code epoch}; {@code alignment} is set for a successor. */
    void claimed(HeldLease lease, long epoch, Alignment alignment) {
        this.lease = lease;
        this.epoch = epoch;
        this.alignment = alignment;
    }

    long epoch() {
        return epoch;
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

    /** Appends what the log does not hold yet: everything for a first driver, the aligned remainder for a successor. */
    void emit(List<JsonObject> chunks) {
        List<JsonObject> remainder = aligned(chunks);
        if (!remainder.isEmpty()) {
            append(remainder);
        }
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
        if (lease != null && lease.lost()) {
            // A driver that could not renew its lease stops at once: a successor may own the run.
            throw new LeaseLostException("lease " + lease.name() + " lost");
        }
        ctx.hub().publish(run.ref(), ctx.log().append(run.ref(), epoch, chunks));
    }

    /** Appends the terminal chunk(s), then the terminal record, both fenced by the epoch. */
    void finish(String label, List<JsonObject> terminal, RunStatus status, Optional<RunError> error) {
        if (!terminal.isEmpty()) {
            append(terminal);
        }
        FinishResult result = ctx.log().finishRun(run.ref(), epoch, status, ctx.clock().instant(), error);
        if (result == FinishResult.FINISHED) {
            ending = RunDriver.Ending.FINISHED;
            endStatus = status;
        } else if (result == FinishResult.STALE_EPOCH) {
            ending = RunDriver.Ending.FENCED_OUT;
        }
        LOG.info(label + ": " + status.wireName() + " (" + result + ")" + error.map(e -> ": " + e.message()).orElse(""));
    }

    /** Records an unexpected failure as the run's end, retrying a few times; quiet once fenced out. */
    void failQuietly(String label, RunError error) {
        if (epoch == 0) {
            return;
        }
        ChunkFactory chunks = new ChunkFactory(run.runId(), run.threadId(), ctx.clock()::millis);
        for (int attempt = 1; attempt <= 3; attempt++) {
            try {
                finish(label, List.of(chunks.runError(error.message(), error.code().orElse("internal-error"))), RunStatus.FAILED, Optional.of(error));
                return;
            } catch (StaleEpochException e) {
                return;
            } catch (RuntimeException e) {
                LOG.log(Level.SEVERE, label + ": could not record the failure (attempt " + attempt + "/3)", e);
                try {
                    Thread.sleep(500L * attempt);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** The driver's lease could not be renewed: it must not write again. */
    static final class LeaseLostException extends RuntimeException {
        LeaseLostException(String message) {
            super(message);
        }
    }
}
