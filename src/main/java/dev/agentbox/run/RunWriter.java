package dev.agentbox.run;

import dev.agentbox.platform.lease.HeldLease;
import dev.agentbox.platform.lease.LeaseNames;
import dev.agentbox.platform.lease.Leases;
import dev.agentbox.run.store.ClaimStore;
import dev.agentbox.run.store.EventLog;
import dev.agentbox.run.store.FinishResult;
import dev.agentbox.run.store.LoggedChunk;
import dev.agentbox.run.store.RunError;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.run.store.RunStatus;
import dev.agentbox.run.store.StaleEpochException;
import jakarta.json.JsonObject;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The one way a run is written, whoever writes it: its first driver, a successor, the reaper's
 * finalizer, an abort (a cancel landed by another server, the reaper's expiry).
 *
 * <ol>
 *   <li>{@link #lease}: the run's driver lease, taken only when free (a live driver keeps its run);
 *   <li>{@link Lease#claim}: a new epoch on the run's claim row, refused for a terminal or unknown
 *       run;
 *   <li>{@link Claim#append}: chunks, fenced by the epoch;
 *   <li>{@link Claim#finish}: the terminal chunks, then the terminal record, fenced the same way.
 * </ol>
 *
 * Invariants:
 *
 * <ul>
 *   <li>Nothing is written without the lease and a claim. The lease decides who may try; the epoch
 *       decides whose writes land.
 *   <li>The store compares the epoch under the claim row's lock, so a writer paused across a
 *       successor's claim writes nothing: its append throws {@link StaleEpochException}, its finish
 *       returns {@link FinishResult#STALE_EPOCH}.
 *   <li>Once the lease could not be renewed, appends are refused at once ({@link
 *       LeaseLostException}): a successor may claim the run as soon as the lease expires.
 *   <li>A terminal record is final: a second finish writes nothing ({@link
 *       FinishResult#ALREADY_TERMINAL}).
 *   <li>Every append is published to this server's viewers of the run.
 * </ul>
 *
 * A plain class: it is constructed with its stores and clock, so the reaper's framework-free core
 * uses it as the server does.
 */
public final class RunWriter {

    private final Leases leases;
    private final ClaimStore claims;
    private final EventLog log;
    private final RunEventHub hub;
    private final Clock clock;
    private final String nodeId;
    private final Duration leaseTtl;
    private final Duration leaseRenew;
    private java.util.function.Consumer<RunRef> ended = run -> {};

    public RunWriter(
            Leases leases,
            ClaimStore claims,
            EventLog log,
            RunEventHub hub,
            Clock clock,
            String nodeId,
            Duration leaseTtl,
            Duration leaseRenew) {
        this.leases = leases;
        this.claims = claims;
        this.log = log;
        this.hub = hub;
        this.clock = clock;
        this.nodeId = nodeId;
        this.leaseTtl = leaseTtl;
        this.leaseRenew = leaseRenew;
    }

    /** The writer of the server {@code ctx} belongs to, with its driver lease settings. */
    public static RunWriter of(RunContext ctx) {
        return new RunWriter(
                        ctx.leases(),
                        ctx.claims(),
                        ctx.log(),
                        ctx.hub(),
                        ctx.clock(),
                        ctx.nodeId(),
                        ctx.takeover().leaseTtl(),
                        ctx.takeover().leaseRenew())
                .onEnded(ctx.runEnded());
    }

    /**
     * {@code ended} is told of each run this writer ends (after its terminal record is written; a
     * failure of it is logged, never the finish's).
     */
    public RunWriter onEnded(java.util.function.Consumer<RunRef> ended) {
        this.ended = ended;
        return this;
    }

    /**
     * Step 1: takes the driver lease of {@code run} without waiting. Empty when someone holds it: a
     * live driver, or another server's finalizer or abort, writes the run itself.
     */
    public Optional<Lease> lease(RunRef run) {
        return leases.acquire(LeaseNames.runDriver(run.id()), leaseTtl, leaseRenew, Duration.ZERO)
                .map(held -> new Lease(run, held));
    }

    /**
     * Step 1 for a successor whose predecessor's server session has ended: takes the driver lease
     * at once, expired or not, if {@code goneSession} still holds it (see {@link
     * Leases#takeFromGoneSession}). Empty when another successor took it first.
     */
    public Optional<Lease> leaseFromGoneSession(RunRef run, long goneSession) {
        return leases.takeFromGoneSession(
                        LeaseNames.runDriver(run.id()), goneSession, leaseTtl, leaseRenew)
                .map(held -> new Lease(run, held));
    }

    /** The driver lease of one run, renewed in the background until closed. */
    public final class Lease implements AutoCloseable {

        private final RunRef run;
        private final HeldLease held;

        private Lease(RunRef run, HeldLease held) {
            this.run = run;
            this.held = held;
        }

        /**
         * Whether a renewal failed or the server session it was taken under broke: the holder must
         * stop writing, a successor may own the run.
         */
        public boolean lost() {
            return held.lost();
        }

        /**
         * Step 2: claims the run with a new epoch, which fences out every earlier writer. Empty
         * when the run is terminal or unknown (the store reads the status under the claim lock, so
         * a run finished a moment ago is never re-claimed).
         */
        public Optional<Claim> claim() {
            OptionalLong epoch = claims.claim(run, nodeId);
            return epoch.isPresent()
                    ? Optional.of(new Claim(this, epoch.getAsLong()))
                    : Optional.empty();
        }

        /** Gives the lease up, so a successor or a waiting abort gets it at once. */
        @Override
        public void close() {
            held.close();
        }
    }

    /** A claim of one run: the epoch every write of this writer is fenced by. */
    public final class Claim {

        private final Lease lease;
        private final long epoch;

        /** The end whose terminal chunks are in the log; only its record may be left to write. */
        private Ending appended;

        /** Terminal chunks stored by {@link #finish} and not yet published to viewers. */
        private List<LoggedChunk> unpublished;

        private record Ending(RunStatus status, Optional<RunError> error) {}

        private Claim(Lease lease, long epoch) {
            this.lease = lease;
            this.epoch = epoch;
        }

        public long epoch() {
            return epoch;
        }

        /** See {@link Lease#lost()}. */
        public boolean leaseLost() {
            return lease.lost();
        }

        /**
         * Step 3: appends {@code chunks} and publishes them to this server's viewers.
         *
         * @throws LeaseLostException when the lease could not be renewed; nothing was written
         * @throws StaleEpochException when another writer claimed the run since; nothing was
         *     written
         */
        public void append(List<JsonObject> chunks) {
            hub.publish(lease.run, store(chunks));
        }

        private List<LoggedChunk> store(List<JsonObject> chunks) {
            if (lease.lost()) {
                // Stop at once rather than at the successor's claim: once the lease has
                // expired, a successor may have taken it and be replaying the journal.
                throw new LeaseLostException("lease " + lease.held.name() + " lost");
            }
            return log.append(lease.run, epoch, chunks);
        }

        /**
         * Step 4: appends {@code terminal} (when not empty), then writes the terminal record. The
         * record is written only while {@link #epoch} is still current and the run not yet
         * terminal; anything else returns without writing. Once the terminal chunks are stored, a
         * later call (a retry after the record's write failed) appends nothing and writes the
         * record of that first end: its own {@code terminal}, {@code status} and {@code error} are
         * ignored.
         *
         * @throws LeaseLostException as {@link #append}
         * @throws StaleEpochException as {@link #append}, when {@code terminal} is not empty
         */
        public FinishResult finish(
                List<JsonObject> terminal, RunStatus status, Optional<RunError> error) {
            // The chunks and the record are two writes. When the record's failed (a database
            // that went away between them), the log already ends with this end's terminal
            // chunk: a retry — whatever end it asks for — writes only that end's record, so
            // the log never holds a second terminal chunk nor a record that contradicts it.
            Ending end = appended;
            if (end == null) {
                end = new Ending(status, error);
                if (!terminal.isEmpty()) {
                    unpublished = store(terminal);
                    appended = end;
                }
            }
            FinishResult result;
            try {
                result =
                        log.finishRun(lease.run, epoch, end.status(), clock.instant(), end.error());
            } finally {
                // This server's viewers get the terminal chunks only once the record is written
                // (or could not be): a client that reads RUN_FINISHED and then asks for the run
                // finds it terminal, not still running.
                if (unpublished != null) {
                    hub.publish(lease.run, unpublished);
                    unpublished = null;
                }
            }
            if (result == FinishResult.FINISHED) {
                try {
                    ended.accept(lease.run);
                } catch (RuntimeException e) {
                    java.util.logging.Logger.getLogger(RunWriter.class.getName())
                            .log(java.util.logging.Level.WARNING, "after the end of a run", e);
                }
            }
            return result;
        }
    }

    /** The driver lease could not be renewed: the writer must not write again. */
    public static final class LeaseLostException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        LeaseLostException(String message) {
            super(message);
        }
    }
}
