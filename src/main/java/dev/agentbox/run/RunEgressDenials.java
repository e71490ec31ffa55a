package dev.agentbox.run;

import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.sandbox.spi.EgressAudit;
import dev.agentbox.sandbox.spi.SandboxHandle;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * The egress refusals of one run's sandbox (docs/egress.md), turned into coalesced {@code CUSTOM
 * egress.denied {"host","port","count"}} chunks by its driver, so a user sees why the agent's
 * {@code npm install} failed.
 *
 * <ul>
 *   <li>A driver reads from the audit's end as it found it before the agent started ({@link
 *       AgentLaunch}; the agent's first request may be refused at once): a run is told of the
 *       refusals made while it was driven, never of an earlier run's; a successor starts afresh
 *       (refusals in the gap between two drivers are logged by the gateway only).
 *   <li>At most one read every {@value #POLL_MS} ms (one exec in the gateway), refusals of one read
 *       merged per destination, at most {@value #PER_RUN} chunks per driver; what is over is one
 *       {@code egress.denied} with {@code "host":"*"} and its count.
 *   <li>Only the driver's thread calls {@link #drain}, so these chunks go through the same fence as
 *       the journal's; a gateway that cannot be read costs the run nothing but these chunks.
 *   <li>A read that fails (a gateway restarting, an engine or API server that does not answer for a
 *       moment) is tried again at the next poll, from the same position; only {@value #GIVE_UP}
 *       failed reads in a row end the reading for the rest of the drive.
 * </ul>
 */
final class RunEgressDenials {

    private static final Logger LOG = Logger.getLogger(RunDriver.class.getName());

    static final long POLL_MS = 2000;
    static final int PER_RUN = 1000;
    static final int GIVE_UP = 3;

    private final EgressAudit audit;
    private final LongSupplier nanos;
    private long position;
    private long lastRead;
    private int emitted;
    private long over;
    private int failures;

    RunEgressDenials(EgressAudit audit, long position, LongSupplier nanos) {
        this.audit = audit;
        this.position = position;
        this.nanos = nanos;
        this.lastRead = nanos.getAsLong();
    }

    /** The refusals of {@code handle}'s sandbox from now on; empty for any other network. */
    static Optional<RunEgressDenials> start(String label, SandboxHandle handle) {
        try {
            return handle.egressAudit()
                    .map(a -> new RunEgressDenials(a, a.end(), System::nanoTime));
        } catch (RuntimeException e) {
            LOG.warning(
                    label + ": egress refusals unavailable, the run goes on without them: " + e);
            return Optional.empty();
        }
    }

    /**
     * {@link #start} on a thread of its own: where the audit stands is an engine round trip to the
     * sandbox's gateway and an exec there (tens of milliseconds), which thus overlaps the driver's
     * other work before the agent starts instead of delaying the agent. The caller still waits for
     * it ({@link Reading#get}) before starting the agent, so the position is one from before the
     * agent's first request, as {@link #start} requires.
     */
    static Reading startReading(String label, SandboxHandle handle) {
        CompletableFuture<Optional<RunEgressDenials>> read = new CompletableFuture<>();
        Thread t =
                new Thread(
                        () -> {
                            try {
                                read.complete(start(label, handle));
                            } finally {
                                read.complete(Optional.empty()); // an Error: no refusals
                            }
                        },
                        "agentbox-run-egress-audit");
        t.setDaemon(true);
        t.start();
        return new Reading(read);
    }

    /** A {@link #startReading} under way. */
    static final class Reading {
        private final CompletableFuture<Optional<RunEgressDenials>> read;

        private Reading(CompletableFuture<Optional<RunEgressDenials>> read) {
            this.read = read;
        }

        /**
         * The refusals from where the audit stood, once read; empty as {@link #start}'s. Bounded by
         * the gateway's exec deadline.
         */
        Optional<RunEgressDenials> get() {
            return read.join();
        }
    }

    /**
     * The {@code egress.denied} chunks due now: nothing until {@value #POLL_MS} ms since the last
     * read, unless {@code last}. {@code report} is told of each destination and its count (the
     * server's log line and metric).
     */
    List<JsonObject> drain(ChunkFactory chunks, boolean last, Reporter report) {
        long now = nanos.getAsLong();
        if (failures >= GIVE_UP || (!last && now - lastRead < POLL_MS * 1_000_000)) {
            return List.of();
        }
        lastRead = now;
        EgressAudit.Refusals read;
        try {
            read = audit.since(position);
        } catch (RuntimeException e) {
            failures++;
            LOG.warning(
                    failures >= GIVE_UP
                            ? "egress refusals could not be read "
                                    + failures
                                    + " times in a row, none are reported further: "
                                    + e
                            : "egress refusals could not be read, tried again at the next poll: "
                                    + e);
            return List.of();
        }
        failures = 0;
        position = read.next();
        Map<String, long[]> counts = new LinkedHashMap<>();
        Map<String, EgressAudit.Refusal> first = new LinkedHashMap<>();
        for (EgressAudit.Refusal r : read.refusals()) {
            String k = r.host() + ":" + r.port();
            counts.computeIfAbsent(k, x -> new long[1])[0]++;
            first.putIfAbsent(k, r);
        }
        List<JsonObject> out = new ArrayList<>();
        for (Map.Entry<String, long[]> e : counts.entrySet()) {
            EgressAudit.Refusal r = first.get(e.getKey());
            long n = e.getValue()[0];
            report.refused(r.host(), r.port(), n);
            if (emitted >= PER_RUN) {
                over += n;
                continue;
            }
            emitted++;
            out.add(chunk(chunks, r.host(), r.port(), n));
        }
        if (over > 0 && last) {
            out.add(chunk(chunks, "*", 0, over));
            over = 0;
        }
        return out;
    }

    private static JsonObject chunk(ChunkFactory chunks, String host, int port, long count) {
        return chunks.custom(
                ServiceChunks.EGRESS_DENIED,
                Json.createObjectBuilder()
                        .add("host", host)
                        .add("port", port)
                        .add("count", count)
                        .build());
    }

    /** Where a driver reports each refused destination (its log line and metric). */
    interface Reporter {
        void refused(String host, int port, long count);
    }
}
