package dev.agentbox.bench;

import dev.agentbox.it.Api;
import dev.agentbox.it.JarServer;
import dev.agentbox.it.Runs;
import dev.agentbox.it.Sandboxes;
import dev.agentbox.it.SseClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Takeover latency: server A drives a run and is killed with SIGKILL; the time from the kill to the
 * first new chunk, split into kill → the run's driver lease held by B, lease → claim (the epoch
 * turns 2) and claim → first new chunk (replay and append). Both servers are runnable jars on the
 * PostgreSQL test database (scripts/postgres).
 *
 * <p>With the default settings ({@code agentbox.takeover.liveness=session}) B's session poll finds
 * A's ended database session and takes the run over at once. With the third argument {@code lease}
 * both servers run with {@code AGENTBOX_TAKEOVER_LIVENESS=lease}: B waits for A's lease to expire
 * (TTL 10 s) and then for the quiet window (5 s) before it claims. Each iteration prints the causes
 * B's {@code agentbox_runs_takeovers_total} counter grew by, which shows the path taken.
 *
 * <p>Usage: {@code TakeoverBench [iterations=10] [attached|never-watched|both] [session|lease]}.
 */
public final class TakeoverBench {

    /**
     * A schema of its own in the IT database: every server on the session path takes over the runs
     * of any ended session whose leases it can see, so a server of another test on {@code
     * agentbox_it} would otherwise race B for the bench's runs (and B for its).
     */
    static final String SCHEMA = "agentbox_takeover_bench";

    static final String DB = "jdbc:postgresql://127.0.0.1:5432/agentbox_it?currentSchema=" + SCHEMA;

    private static final Pattern TAKEOVERS =
            Pattern.compile(
                    "^agentbox_runs_takeovers_total\\{[^}]*cause=\"([^\"]+)\"[^}]*\\}\\s+([0-9.eE+-]+)",
                    Pattern.MULTILINE);

    public static void main(String[] args) throws Exception {
        int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        String mode = args.length > 1 ? args[1] : "both";
        String liveness = args.length > 2 ? args[2] : "session";
        if (!liveness.equals("session") && !liveness.equals("lease")) {
            throw new IllegalArgumentException("liveness must be session or lease: " + liveness);
        }
        try (Connection db =
                        DriverManager.getConnection(
                                "jdbc:postgresql://127.0.0.1:5432/agentbox_it",
                                "agentbox",
                                "agentbox");
                java.sql.Statement s = db.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS " + SCHEMA);
        }
        if (!mode.equals("never-watched")) {
            attached(iterations, liveness);
        }
        if (!mode.equals("attached")) {
            neverWatched(iterations, liveness);
        }
    }

    /** The servers' environment: defaults, except the liveness path in {@code lease} mode. */
    private static Map<String, String> env(String liveness) {
        Map<String, String> env =
                new HashMap<>(
                        Map.of(
                                "AGENTBOX_DB_URL",
                                DB,
                                "AGENTBOX_DB_USER",
                                "agentbox",
                                "AGENTBOX_DB_PASSWORD",
                                "agentbox",
                                "AGENTBOX_AUTH_TOKENS",
                                "tenant-a=token-a"));
        if (liveness.equals("lease")) {
            env.put("AGENTBOX_TAKEOVER_LIVENESS", "lease");
        }
        return env;
    }

    /**
     * A run nobody watches: A drives it and is killed; no client attaches anywhere. On the session
     * path B's session poll finds A's ended session; on the lease path only B's reaper (default
     * interval) can take it over. Measured: the kill → the next chunk in the stored log (polled
     * every 20 ms), with the same parts as the attached case.
     */
    private static void neverWatched(int iterations, String liveness) throws Exception {
        Path work = Files.createTempDirectory("agentbox-takeover-bench");
        System.err.println("never-watched (" + liveness + " path), server logs in " + work);
        Map<String, String> env = env(liveness);
        TakeoverParts parts = new TakeoverParts(iterations);
        Map<String, Long> causes = new TreeMap<>();
        env.put("AGENTBOX_NODE_ID", "B");
        try (JarServer b = JarServer.start(work, 19680, env, "/health/ready");
                Sandboxes sandboxes = new Sandboxes(b.api(), Api.TENANT_A);
                Connection db = connect()) {
            String key =
                    sandboxes
                            .ensure(
                                    "{\"definitionId\":\"takeover-bench-nw-"
                                            + UUID.randomUUID()
                                            + "\"}")
                            .getString("key");
            env.put("AGENTBOX_NODE_ID", "A");
            env.put("AGENTBOX_REAPER_ENABLED", "false");
            for (int i = 0; i < iterations; i++) {
                // Closed even when an iteration fails: a left-over A would answer the next run's
                // port.
                try (JarServer a = JarServer.start(work, 19780, env, "/health/ready")) {
                    String runId = "tk-bench-nw-" + UUID.randomUUID();
                    String gate = "/tmp/gate-" + runId;
                    new Runs(a.api(), Api.TENANT_A).start(tickingRun(runId, key, gate));
                    org.awaitility.Awaitility.await()
                            .atMost(Duration.ofSeconds(30))
                            .until(() -> storedChunks(db, runId) >= 4);
                    Map<String, Long> countsBefore = takeovers(b);
                    try (TakeoverProbe probe = TakeoverProbe.start(runId)) {
                        long t0 = System.nanoTime();
                        String killedAt = java.time.Instant.now().toString();
                        a.kill();
                        long tKilled = System.nanoTime();
                        long deadline = t0 + Duration.ofMinutes(5).toNanos();
                        // The first chunk beyond what was stored when the epoch turned 2: the
                        // successor's (the dead driver's late writes are fenced off by the claim).
                        while (probe.seqAtClaim() < 0 || maxSeq(db, runId) <= probe.seqAtClaim()) {
                            if (System.nanoTime() > deadline) {
                                throw new IllegalStateException(
                                        "no new chunk within 5 minutes of the kill");
                            }
                            Thread.sleep(20);
                        }
                        long t1 = System.nanoTime();
                        sandboxes.exec(key, "touch " + gate);
                        Map<String, Long> grown = grown(countsBefore, takeovers(b));
                        grown.forEach((c, n) -> causes.merge(c, n, Long::sum));
                        parts.record(
                                i,
                                "never-watched (kill at " + killedAt + ")",
                                t0,
                                tKilled,
                                probe.leaseTaken(),
                                probe.claimed(),
                                t1,
                                grown);
                    }
                    org.awaitility.Awaitility.await()
                            .atMost(Duration.ofSeconds(60))
                            .until(
                                    () ->
                                            !new Runs(b.api(), Api.TENANT_A)
                                                    .get(runId)
                                                    .getString("status")
                                                    .equals("running"));
                }
            }
        }
        parts.print(
                "never-watched run: SIGKILL of its driver → next chunk in the stored log",
                liveness,
                causes);
    }

    private static void attached(int iterations, String liveness) throws Exception {
        Path work = Files.createTempDirectory("agentbox-takeover-bench");
        System.err.println("attached (" + liveness + " path), server logs in " + work);
        Map<String, String> env = env(liveness);
        TakeoverParts parts = new TakeoverParts(iterations);
        Map<String, Long> causes = new TreeMap<>();
        env.put("AGENTBOX_NODE_ID", "B");
        try (JarServer b = JarServer.start(work, 19680, env, "/health/ready");
                Sandboxes sandboxes = new Sandboxes(b.api(), Api.TENANT_A)) {
            String key =
                    sandboxes
                            .ensure(
                                    "{\"definitionId\":\"takeover-bench-"
                                            + UUID.randomUUID()
                                            + "\"}")
                            .getString("key");
            Runs onB = new Runs(b.api(), Api.TENANT_A);
            for (int i = 0; i < iterations; i++) {
                env.put("AGENTBOX_NODE_ID", "A");
                // Closed even when an iteration fails: a left-over A would answer the next run's
                // port.
                try (JarServer a = JarServer.start(work, 19780, env, "/health/ready")) {
                    String runId = "tk-bench-" + UUID.randomUUID();
                    String gate = "/tmp/gate-" + runId;
                    new Runs(a.api(), Api.TENANT_A).start(tickingRun(runId, key, gate));
                    org.awaitility.Awaitility.await()
                            .atMost(Duration.ofSeconds(30))
                            .until(
                                    () ->
                                            Api.json(
                                                                    b.api()
                                                                            .get(
                                                                                    Runs.path(runId)
                                                                                            + "/log",
                                                                                    Api.TENANT_A))
                                                            .asJsonArray()
                                                            .size()
                                                    >= 4);
                    try (SseClient sse = onB.events(runId, "4")) {
                        Map<String, Long> countsBefore = takeovers(b);
                        try (TakeoverProbe probe = TakeoverProbe.start(runId)) {
                            long t0 = System.nanoTime();
                            String killedAt = java.time.Instant.now().toString();
                            a.kill();
                            long tKilled = System.nanoTime();
                            long t1 = firstNewChunk(sse, probe);
                            sandboxes.exec(key, "touch " + gate);
                            Map<String, Long> grown = grown(countsBefore, takeovers(b));
                            grown.forEach((c, n) -> causes.merge(c, n, Long::sum));
                            parts.record(
                                    i,
                                    "attached (kill at " + killedAt + ")",
                                    t0,
                                    tKilled,
                                    probe.leaseTaken(),
                                    probe.claimed(),
                                    t1,
                                    grown);
                        }
                    }
                    onB.transcript(runId, null);
                }
            }
        }
        parts.print(
                "takeover (SIGKILL → first new chunk at a client of the other server)",
                liveness,
                causes);
    }

    /**
     * When the client received the first chunk with a sequence number beyond what was stored when
     * the epoch turned 2, i.e. the first chunk the successor appended. Chunks the dead driver had
     * stored still arrive before it (the client may lag); they are not new.
     */
    private static long firstNewChunk(SseClient sse, TakeoverProbe probe) {
        java.util.List<long[]> received = new java.util.ArrayList<>();
        while (true) {
            SseClient.Event e = sse.next(Duration.ofSeconds(60));
            long now = System.nanoTime();
            if (e == null) {
                throw new IllegalStateException("the stream ended before a new chunk arrived");
            }
            if (e.id() != null && !e.id().isBlank()) {
                received.add(new long[] {Long.parseLong(e.id().trim()), now});
            }
            long atClaim = probe.seqAtClaim();
            if (atClaim >= 0) {
                for (long[] r : received) {
                    if (r[0] > atClaim) {
                        return r[1];
                    }
                }
            }
        }
    }

    private static long maxSeq(Connection db, String runId) throws Exception {
        try (PreparedStatement s =
                db.prepareStatement(
                        "SELECT COALESCE(MAX(e.chunk_seq), 0) FROM ab_run_event e JOIN ab_run r ON e.run_pk = r.run_pk WHERE r.run_id = ?")) {
            s.setString(1, runId);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /**
     * The agent: one chunk, then one every 100 ms until the gate file exists (at most 2 minutes),
     * then a last one. It keeps writing while its driver is dead, so the first chunk its successor
     * appends does not wait for anything the bench does after the kill.
     */
    private static String tickingRun(String runId, String key, String gate) {
        return Runs.runBody(
                runId,
                "{\"key\":\"" + key + "\"}",
                "echo '{\"delta\":\"a\"}'; i=0; while [ ! -f "
                        + gate
                        + " ] && [ $i -lt 1200 ]; do echo '{\"delta\":\"t'$i'\"}'; i=$((i+1));"
                        + " sleep 0.1; done; echo '{\"delta\":\"b\"}'",
                "");
    }

    /** B's {@code agentbox_runs_takeovers_total} by cause, from {@code /metrics}. */
    private static Map<String, Long> takeovers(JarServer server) {
        String body =
                server.api().send(server.api().request("/metrics?scope=application").GET()).body();
        Map<String, Long> counts = new TreeMap<>();
        Matcher m = TAKEOVERS.matcher(body);
        while (m.find()) {
            counts.merge(m.group(1), (long) Double.parseDouble(m.group(2)), Long::sum);
        }
        return counts;
    }

    private static Map<String, Long> grown(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> grown = new TreeMap<>();
        after.forEach(
                (cause, n) -> {
                    long d = n - before.getOrDefault(cause, 0L);
                    if (d != 0) {
                        grown.put(cause, d);
                    }
                });
        return grown;
    }

    static Connection connect() throws Exception {
        return DriverManager.getConnection(DB, "agentbox", "agentbox");
    }

    private static long storedChunks(Connection db, String runId) throws Exception {
        try (PreparedStatement s =
                db.prepareStatement(
                        "SELECT COUNT(*) FROM ab_run_event e JOIN ab_run r ON e.run_pk = r.run_pk WHERE r.run_id = ?")) {
            s.setString(1, runId);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    static long median(long[] v) {
        long[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    static long max(long[] v) {
        return Arrays.stream(v).max().orElse(0);
    }
}
