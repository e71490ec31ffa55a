package dev.agentbox.run;

import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.sandbox.SandboxSecrets;
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
 * <p>It also keeps the run's brokered secrets at the gateway: a read that finds the gateway holding
 * none of them (it was made again: a crash, an engine restart, an operator's {@code docker rm})
 * gives them back once ({@link SandboxHandle#restoreBrokered}): the values this server holds, the
 * others by name only. A request that carried a placeholder the gateway held no value for becomes
 * one {@code CUSTOM egress.secret-missing {"name","host"}} chunk per variable and host; if this
 * server cannot give that value either, {@link #unrepairable} says so and the driver ends the run
 * ({@code secret-missing}) instead of letting the agent meet refusals until it gives up.
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
    private final java.util.function.Supplier<java.util.Set<String>> restorer;
    private final LongSupplier nanos;

    /** Variables the gateway was given a value for by this driver's last restore. */
    private java.util.Set<String> given = java.util.Set.of();

    /**
     * The gateway was found without the sandbox's secrets and given them back (until it has them).
     */
    private boolean restored;

    private final java.util.Set<String> missingTold = new java.util.HashSet<>();
    private EgressAudit.Refusal unrepairable;
    private long position;
    private long lastRead;
    private int emitted;
    private long over;
    private int failures;

    RunEgressDenials(EgressAudit audit, long position, LongSupplier nanos) {
        this(audit, null, position, nanos);
    }

    /**
     * {@code restorer} gives the gateway the sandbox's brokered secrets again and returns the
     * variables it gave a value (it may throw); null: never.
     */
    RunEgressDenials(
            EgressAudit audit,
            java.util.function.Supplier<java.util.Set<String>> restorer,
            long position,
            LongSupplier nanos) {
        this.audit = audit;
        this.restorer = restorer;
        this.position = position;
        this.nanos = nanos;
        this.lastRead = nanos.getAsLong();
    }

    /** The refusals of {@code handle}'s sandbox from now on; empty for any other network. */
    static Optional<RunEgressDenials> start(String label, SandboxHandle handle) {
        try {
            return handle.egressAudit()
                    .map(
                            a ->
                                    new RunEgressDenials(
                                            a,
                                            () -> restoreBrokered(handle),
                                            endOrUnknown(label, a),
                                            System::nanoTime));
        } catch (RuntimeException e) {
            LOG.warning(
                    label + ": egress refusals unavailable, the run goes on without them: " + e);
            return Optional.empty();
        }
    }

    /**
     * Where the audit ends now, or {@link #UNKNOWN} when the gateway cannot say (it is being made
     * again, or removed under a successor that took the run over at once): the first read that
     * succeeds starts from the end as it then stands, so the reading, and with it the gateway's
     * repair, goes on.
     */
    private static long endOrUnknown(String label, EgressAudit a) {
        try {
            return a.end();
        } catch (RuntimeException e) {
            LOG.warning(label + ": where the egress refusals stand is unknown, read later: " + e);
            return UNKNOWN;
        }
    }

    /** A position not known yet: the audit's end at the first read that succeeds. */
    static final long UNKNOWN = -1;

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
            if (position == UNKNOWN) {
                position = audit.end();
            }
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
        List<JsonObject> out = new ArrayList<>();
        if (!read.secretsHeld() && !restored) {
            restored = restore().isPresent();
        } else if (read.secretsHeld()) {
            restored = false;
        }
        Map<String, long[]> counts = new LinkedHashMap<>();
        Map<String, EgressAudit.Refusal> first = new LinkedHashMap<>();
        for (EgressAudit.Refusal r : read.refusals()) {
            if (r.missingSecret() != null) {
                missing(chunks, r, out);
                continue;
            }
            String k = r.host() + ":" + r.port();
            counts.computeIfAbsent(k, x -> new long[1])[0]++;
            first.putIfAbsent(k, r);
        }
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

    /**
     * A request carried the placeholder of {@code r.missingSecret()} while the gateway held no
     * value for it: told once per variable and host; the value is given again if this server holds
     * it, else the run cannot go on.
     */
    private void missing(ChunkFactory chunks, EgressAudit.Refusal r, List<JsonObject> out) {
        String name = r.missingSecret();
        if (missingTold.add(name + " " + r.host())) {
            LOG.warning(
                    "egress gateway held no value for brokered secret "
                            + name
                            + " sent to "
                            + r.host()
                            + ":"
                            + r.port());
            out.add(
                    chunks.custom(
                            ServiceChunks.EGRESS_SECRET_MISSING,
                            Json.createObjectBuilder()
                                    .add("name", name)
                                    .add("host", r.host())
                                    .build()));
        }
        if (given.contains(name) || unrepairable != null) {
            return; // given back since: the agent's next try carries it
        }
        if (!restore().map(g -> g.contains(name)).orElse(false)) {
            unrepairable = r;
        }
    }

    /** The sandbox's brokered secrets given to its gateway again, by name from its secrets file. */
    private static java.util.Set<String> restoreBrokered(SandboxHandle handle) {
        Map<String, String> names = SandboxSecrets.brokeredNames(handle);
        return names.isEmpty() ? java.util.Set.of() : handle.restoreBrokered(names);
    }

    /** Gives the gateway the sandbox's brokered secrets again; empty when that failed. */
    private Optional<java.util.Set<String>> restore() {
        if (restorer == null) {
            return Optional.empty();
        }
        try {
            given = restorer.get();
            return Optional.of(given);
        } catch (RuntimeException e) {
            LOG.warning("brokered secrets could not be given to the egress gateway again: " + e);
            return Optional.empty();
        }
    }

    /**
     * A brokered secret the gateway lacks and this server cannot give: the run cannot reach that
     * host with it any more.
     */
    Optional<EgressAudit.Refusal> unrepairable() {
        return Optional.ofNullable(unrepairable);
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
