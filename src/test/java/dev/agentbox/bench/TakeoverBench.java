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
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * Takeover latency with the default settings (lease TTL 10 s, renewal 2 s, quiet window 5 s):
 * server A drives a run and is killed with SIGKILL; a client is attached to server B; the time from
 * the kill to the first new chunk at that client, split into the wait for A's lease to expire (B's
 * successor takes the lease), the quiet window + claim (the epoch turns 2) and the replay up to the
 * first appended chunk. Both servers are runnable jars on the PostgreSQL test database
 * (scripts/postgres).
 */
public final class TakeoverBench {

    static final String DB = "jdbc:postgresql://127.0.0.1:5432/agentbox_it";

    public static void main(String[] args) throws Exception {
        int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        String mode = args.length > 1 ? args[1] : "both";
        if (!mode.equals("never-watched")) {
            attached(iterations);
        }
        if (!mode.equals("attached")) {
            neverWatched(iterations);
        }
    }

    /**
     * A run nobody watches: A drives it and is killed; no client attaches anywhere, so only B's
     * reaper (default interval) can take it over. Measured: the kill → the next chunk in the stored
     * log (polled every 50 ms in the table). Bound: lease TTL + reaper interval + quiet window +
     * replay.
     */
    private static void neverWatched(int iterations) throws Exception {
        Path work = Files.createTempDirectory("agentbox-takeover-bench");
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
        long[] total = new long[iterations];
        env.put("AGENTBOX_NODE_ID", "B");
        try (JarServer b = JarServer.start(work, 19680, env, "/health/ready");
                Sandboxes sandboxes = new Sandboxes(b.api(), Api.TENANT_A);
                Connection db =
                        DriverManager.getConnection(DB + "?user=agentbox&password=agentbox")) {
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
                    new Runs(a.api(), Api.TENANT_A)
                            .start(
                                    Runs.runBody(
                                            runId,
                                            "{\"key\":\"" + key + "\"}",
                                            "echo '{\"delta\":\"a\"}'; while [ ! -f "
                                                    + gate
                                                    + " ]; do sleep 0.05; done; echo '{\"delta\":\"b\"}'",
                                            ""));
                    org.awaitility.Awaitility.await()
                            .atMost(Duration.ofSeconds(30))
                            .until(() -> storedChunks(db, runId) >= 4);
                    long before = storedChunks(db, runId);
                    long t0 = System.nanoTime();
                    a.kill();
                    sandboxes.exec(key, "touch " + gate);
                    long deadline = t0 + Duration.ofMinutes(5).toNanos();
                    while (storedChunks(db, runId) <= before) {
                        if (System.nanoTime() > deadline) {
                            throw new IllegalStateException(
                                    "no new chunk within 5 minutes of the kill");
                        }
                        Thread.sleep(50);
                    }
                    total[i] = (System.nanoTime() - t0) / 1_000_000;
                    System.err.printf(
                            Locale.ROOT, "never-watched iteration %d: %d ms%n", i + 1, total[i]);
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
        System.out.printf(
                Locale.ROOT,
                "| never-watched run: SIGKILL of its driver → next chunk in the stored log, %d runs | median %d ms | max %d ms |%n",
                iterations,
                median(total),
                max(total));
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

    private static void attached(int iterations) throws Exception {
        Path work = Files.createTempDirectory("agentbox-takeover-bench");
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
        long[] total = new long[iterations];
        long[] leaseWait = new long[iterations];
        long[] quietAndClaim = new long[iterations];
        long[] replay = new long[iterations];
        env.put("AGENTBOX_NODE_ID", "B");
        try (JarServer b = JarServer.start(work, 19680, env, "/health/ready");
                Sandboxes sandboxes = new Sandboxes(b.api(), Api.TENANT_A);
                Connection db =
                        DriverManager.getConnection(DB + "?user=agentbox&password=agentbox")) {
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
                    new Runs(a.api(), Api.TENANT_A)
                            .start(
                                    Runs.runBody(
                                            runId,
                                            "{\"key\":\"" + key + "\"}",
                                            "echo '{\"delta\":\"a\"}'; while [ ! -f "
                                                    + gate
                                                    + " ]; do sleep 0.05; done; echo '{\"delta\":\"b\"}'",
                                            ""));
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
                        long t0 = System.nanoTime();
                        a.kill();
                        sandboxes.exec(key, "touch " + gate);
                        long tLease = 0;
                        long tClaim = 0;
                        // Watch the lease row and the epoch while waiting for the first new chunk.
                        Thread watcher = Thread.currentThread();
                        long[] marks = new long[2];
                        Thread probe =
                                new Thread(
                                        () -> {
                                            while (!Thread.currentThread().isInterrupted()
                                                    && (marks[0] == 0 || marks[1] == 0)) {
                                                try {
                                                    if (marks[0] == 0
                                                            && driverHolder(db, runId)
                                                                    .startsWith("B/")) {
                                                        marks[0] = System.nanoTime();
                                                    }
                                                    if (marks[1] == 0
                                                            && onB.get(runId)
                                                                            .getInt(
                                                                                    "driverEpoch",
                                                                                    1)
                                                                    == 2) {
                                                        marks[1] = System.nanoTime();
                                                    }
                                                    Thread.sleep(20);
                                                } catch (Exception e) {
                                                    return;
                                                }
                                            }
                                        });
                        probe.start();
                        SseClient.Event first = sse.next(Duration.ofSeconds(60));
                        long t1 = System.nanoTime();
                        probe.join(5000);
                        tLease = marks[0];
                        tClaim = marks[1];
                        if (first == null) {
                            throw new IllegalStateException("no new chunk after takeover");
                        }
                        total[i] = (t1 - t0) / 1_000_000;
                        leaseWait[i] = (tLease - t0) / 1_000_000;
                        quietAndClaim[i] = (tClaim - tLease) / 1_000_000;
                        replay[i] = (t1 - tClaim) / 1_000_000;
                        System.err.printf(
                                Locale.ROOT,
                                "iteration %d: total %d ms (lease %d, quiet+claim %d, replay %d)%n",
                                i + 1,
                                total[i],
                                leaseWait[i],
                                quietAndClaim[i],
                                replay[i]);
                    }
                    onB.transcript(runId, null);
                }
            }
        }
        System.out.printf(
                Locale.ROOT,
                "| takeover (SIGKILL → first new chunk on the other server), %d runs | median %d ms | max %d ms |%n",
                iterations,
                median(total),
                max(total));
        System.out.printf(
                Locale.ROOT,
                "| part: lease expiry wait | median %d ms | |%n| part: quiet window + claim | median %d ms | |%n| part: replay to first appended chunk | median %d ms | |%n",
                median(leaseWait),
                median(quietAndClaim),
                median(replay));
    }

    /** The holder of the run's driver lease ({@code run-driver:<run pk>}). */
    private static String driverHolder(Connection db, String runId) throws Exception {
        try (PreparedStatement s =
                db.prepareStatement(
                        "SELECT l.holder FROM ab_lease l JOIN ab_run r ON l.name = 'run-driver:' || r.run_pk WHERE r.run_id = ?")) {
            s.setString(1, runId);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getString(1) : "";
            }
        }
    }

    private static long median(long[] v) {
        long[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    private static long max(long[] v) {
        return Arrays.stream(v).max().orElse(0);
    }
}
