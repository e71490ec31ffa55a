package dev.agentbox.it;

import static dev.agentbox.it.GatedAgent.AFTER_THREE;
import static dev.agentbox.it.GatedAgent.agent;
import static dev.agentbox.it.GatedAgent.expected;
import static dev.agentbox.it.GatedAgent.gate;
import static dev.agentbox.it.GatedAgent.storedFingerprints;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentbox.run.harness.Chunks;
import dev.agentbox.sandbox.spi.JournalNames;
import dev.agentbox.testing.PostgresPass;
import jakarta.json.JsonObject;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * PostgreSQL pass only: runs taken over across servers. Server A (a runnable jar) drives a run and
 * dies or stalls; server B (another runnable jar), and C where a test needs two successors, share a
 * database of this class's own (the IT server's reaper would race them for A's runs). Short
 * takeover settings keep the tests quick: lease TTL 3 s, renewal 1 s, quiet window 1.5 s. Every
 * server holds a database session (liveness {@code session}): a server that dies is replaced within
 * the session poll, far below TTL + quiet window, which the timed tests tell apart.
 */
@PostgresPass
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TakeoverPostgresIT {

    static final Map<String, String> ENV =
            Map.of(
                    "AGENTBOX_DB_URL", ItDatabase.url(),
                    "AGENTBOX_DB_USER", ItDatabase.user(),
                    "AGENTBOX_DB_PASSWORD", ItDatabase.password(),
                    "AGENTBOX_AUTH_TOKENS", "tenant-a=token-a,tenant-b=token-b,ops=token-ops",
                    "AGENTBOX_TAKEOVER_LEASE_TTL_MS", "3000",
                    "AGENTBOX_TAKEOVER_LEASE_RENEW_MS", "1000",
                    "AGENTBOX_TAKEOVER_FENCE_QUIET_MS", "1500",
                    "AGENTBOX_TAKEOVER_JOURNAL_WAIT_MS", "5000");

    /** This class's database: the IT server's reaper never sees its servers' runs. */
    private static final String DB = "takeover";

    private String dbUrl;

    private Path work;

    private JarServer serverB;

    /** A second successor candidate beside B, for the test that needs two (else null). */
    private JarServer serverC;

    private JarServer serverA;
    private Sandboxes sandboxes;
    private String key;

    @BeforeAll
    void startB() throws Exception {
        dbUrl = ItDatabase.createPrivate(DB);
        work =
                java.nio.file.Files.createTempDirectory(
                        Path.of(System.getProperty("java.io.tmpdir")), "agentbox-takeover");
        serverB = JarServer.start(work, 19580, withNode("B"), "/health/ready");
        sandboxes = new Sandboxes(serverB.api(), Api.TENANT_A);
        key =
                sandboxes
                        .ensure("{\"definitionId\":\"takeover-" + UUID.randomUUID() + "\"}")
                        .getString("key");
    }

    @AfterEach
    void stopA() throws Exception {
        if (serverC != null) {
            serverC.close();
            serverC = null;
        }
        if (serverA != null) {
            resume(serverA);
            serverA.close();
            serverA = null;
        }
    }

    @AfterAll
    void stopB() throws Exception {
        sandboxes.close();
        serverB.close();
        ItDatabase.dropPrivate(DB);
    }

    private Map<String, String> withNode(String node) {
        Map<String, String> env = new java.util.HashMap<>(ENV);
        env.put("AGENTBOX_DB_URL", dbUrl);
        env.put("AGENTBOX_NODE_ID", node);
        return env;
    }

    private JarServer startA() {
        serverA = JarServer.start(work, 19480, withNode("A"), "/health/ready");
        return serverA;
    }

    private void startRunOnA(String runId, String command) {
        new Runs(serverA.api(), Api.TENANT_A)
                .start(Runs.runBody(runId, "{\"key\":\"" + key + "\"}", command, ""));
    }

    /** Starts A and a gated run on it, and waits until the first three lines are stored. */
    private String runOnAPastThreeLines(String prefix) {
        startA();
        String runId = prefix + UUID.randomUUID();
        startRunOnA(runId, agent(gate(runId)));
        awaitStored(serverB.api(), runId, AFTER_THREE);
        return runId;
    }

    private void killA() throws InterruptedException {
        serverA.kill();
        serverA = null;
    }

    private static void awaitStored(Api api, String runId, int chunks) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> storedFingerprints(api, runId).size() >= chunks);
    }

    @Test
    void aKilledDriversRunIsFinishedByAnotherServerWithEveryChunkOnceInOrder() throws Exception {
        String runId = runOnAPastThreeLines("tk-kill-");
        killA();
        sandboxes.exec(key, "touch " + gate(runId));

        Runs onB = new Runs(serverB.api(), Api.TENANT_A);
        List<SseClient.Event> transcript = onB.transcript(runId, null);
        assertThat(transcript.get(transcript.size() - 1).name()).isEqualTo("RUN_FINISHED");
        assertThat(transcript.stream().map(e -> Chunks.fingerprint(Api.parse(e.data()))).toList())
                .containsExactlyElementsOf(expected(runId));
        assertThat(storedFingerprints(serverB.api(), runId))
                .containsExactlyElementsOf(expected(runId));
        JsonObject record = onB.get(runId);
        assertThat(record.getString("status")).isEqualTo("completed");
        assertThat(record.getInt("driverEpoch")).isEqualTo(2);
    }

    /** TK-11. */
    @Test
    void aKilledDriversNextChunkReachesAClientOfAnotherServerWithinTwoSeconds() throws Exception {
        startA();
        String runId = "tk-fast-" + UUID.randomUUID();
        startRunOnA(runId, TickingAgent.agent(gate(runId)));
        double sessionGone = takeovers("session-gone");
        Runs onB = new Runs(serverB.api(), Api.TENANT_A);
        List<String> seen = new ArrayList<>();
        try (SseClient sse = onB.events(runId, null)) {
            while (TickingAgent.ticks(seen) < 5) {
                seen.add(sse.next(Duration.ofSeconds(30)).data());
            }
            long killed = System.nanoTime();
            killA();
            // A is dead: what the log holds now is all it wrote. The client's next event past
            // that is the successor's first chunk.
            int storedByA = storedFingerprints(serverB.api(), runId).size();
            while (seen.size() <= storedByA) {
                seen.add(sse.next(Duration.ofSeconds(30)).data());
            }
            long elapsedMs = (System.nanoTime() - killed) / 1_000_000;
            assertThat(elapsedMs)
                    .as(
                            "SIGKILL → the successor's first chunk at a client of another server (lease TTL 3 s)")
                    .isLessThanOrEqualTo(2_000);
            sandboxes.exec(key, "touch " + gate(runId));
            for (SseClient.Event e : Runs.drain(sse, Duration.ofSeconds(30))) {
                seen.add(e.data());
            }
        }
        List<String> expected = TickingAgent.expected(runId, TickingAgent.ticks(seen));
        List<String> fingerprints =
                seen.stream().map(d -> Chunks.fingerprint(Api.parse(d))).toList();
        assertThat(fingerprints)
                .as("every chunk once, in order")
                .containsExactlyElementsOf(expected);
        assertThat(storedFingerprints(serverB.api(), runId)).containsExactlyElementsOf(expected);
        JsonObject record = onB.get(runId);
        assertThat(record.getString("status")).isEqualTo("completed");
        assertThat(record.getInt("driverEpoch")).isEqualTo(2);
        assertThat(takeovers("session-gone")).isEqualTo(sessionGone + 1);
    }

    /** TK-12. */
    @Test
    void aNeverWatchedRunWhoseServerIsKilledIsDrivenOnWithinTwoSeconds() throws Exception {
        startA();
        String runId = "tk-unwatched-" + UUID.randomUUID();
        startRunOnA(runId, TickingAgent.agent(gate(runId)));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> TickingAgent.storedTicks(serverB.api(), runId) >= 5);
        long killed = System.nanoTime();
        killA();
        int storedByA = storedFingerprints(serverB.api(), runId).size();
        await().pollInterval(Duration.ofMillis(50))
                .atMost(Duration.ofSeconds(30))
                .until(() -> storedFingerprints(serverB.api(), runId).size() > storedByA);
        long elapsedMs = (System.nanoTime() - killed) / 1_000_000;
        assertThat(elapsedMs)
                .as("SIGKILL → the successor's first chunk stored, nobody watching (lease TTL 3 s)")
                .isLessThanOrEqualTo(2_000);
        sandboxes.exec(key, "touch " + gate(runId));
        Runs onB = new Runs(serverB.api(), Api.TENANT_A);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> onB.get(runId).getString("status").equals("completed"));
        assertThat(storedFingerprints(serverB.api(), runId))
                .containsExactlyElementsOf(
                        TickingAgent.expected(
                                runId, TickingAgent.storedTicks(serverB.api(), runId)));
    }

    /** TK-13. */
    @Test
    void aLiveServerWhoseDatabaseSessionIsCutStopsWritingAndAnotherTakesItsRunsOver()
            throws Exception {
        String runId = runOnAPastThreeLines("tk-cut-");
        long session = holderSession(runId);
        assertThat(terminateBackendHolding(session)).as("A's session backend was found").isTrue();
        // The agent finishes only once A has noticed (its poll, every 250 ms): a run that ends
        // before that is rightly A's to finish under the epoch it holds, which would prove
        // nothing about the takeover.
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () ->
                                assertThat(serverA.log())
                                        .contains("Database session " + session + " broke"));
        sandboxes.exec(key, "touch " + gate(runId));

        Runs onB = new Runs(serverB.api(), Api.TENANT_A);
        List<SseClient.Event> transcript = onB.transcript(runId, null);
        assertThat(transcript.stream().map(e -> Chunks.fingerprint(Api.parse(e.data()))).toList())
                .containsExactlyElementsOf(expected(runId));
        JsonObject record = onB.get(runId);
        assertThat(record.getString("status")).isEqualTo("completed");
        assertThat(record.getInt("driverEpoch")).as("A never claimed it again").isEqualTo(2);
        // A lives on: it noticed, stopped its driver, and holds a new session.
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () ->
                                assertThat(serverA.log())
                                        .contains("Database session " + session + " broke")
                                        .contains("this driver stops writing"));
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () ->
                                assertThat(
                                                serverA.api()
                                                        .send(
                                                                serverA.api()
                                                                        .request("/health/ready")
                                                                        .GET())
                                                        .body())
                                        .contains("\"liveness\":\"session\""));
        Thread.sleep(2_000);
        assertThat(storedFingerprints(serverB.api(), runId))
                .as("A wrote nothing after its session was cut")
                .containsExactlyElementsOf(expected(runId));
    }

    @Test
    void aServerStoppedGracefullyLeavesItsRunToAnotherServerInsteadOfFailingIt() throws Exception {
        String runId = runOnAPastThreeLines("tk-stop-gracefully-");
        serverA.close();
        serverA = null;
        sandboxes.exec(key, "touch " + gate(runId));

        Runs onB = new Runs(serverB.api(), Api.TENANT_A);
        List<SseClient.Event> transcript = onB.transcript(runId, null);
        assertThat(transcript.stream().map(e -> Chunks.fingerprint(Api.parse(e.data()))).toList())
                .containsExactlyElementsOf(expected(runId));
        JsonObject record = onB.get(runId);
        assertThat(record.getString("status")).isEqualTo("completed");
        assertThat(record.getInt("driverEpoch")).isEqualTo(2);
    }

    /** TK-03, TK-14. */
    @Test
    void aPausedDriverWokenAfterATakeoverLandsNothing() throws Exception {
        String runId = runOnAPastThreeLines("tk-stop-");
        double sessionGone = takeovers("session-gone");
        double leaseExpired = takeovers("lease-expired");
        pause(serverA);
        sandboxes.exec(key, "touch " + gate(runId));

        Runs onB = new Runs(serverB.api(), Api.TENANT_A);
        List<SseClient.Event> transcript = onB.transcript(runId, null);
        assertThat(transcript.get(transcript.size() - 1).name()).isEqualTo("RUN_FINISHED");
        List<String> settled = storedFingerprints(serverB.api(), runId);
        assertThat(settled).containsExactlyElementsOf(expected(runId));

        assertThat(takeovers("session-gone"))
                .as("a frozen server keeps its session: no takeover by session")
                .isEqualTo(sessionGone);
        assertThat(takeovers("lease-expired")).isEqualTo(leaseExpired + 1);

        resume(serverA);
        Thread.sleep(5000);
        assertThat(storedFingerprints(serverB.api(), runId))
                .as("the woken driver wrote nothing")
                .containsExactlyElementsOf(settled);
        JsonObject record = onB.get(runId);
        assertThat(record.getString("status")).isEqualTo("completed");
        assertThat(record.getInt("driverEpoch")).isEqualTo(2);
    }

    /** TK-09: two clients attaching at once make one successor. */
    @Test
    void clientsAttachingToAnOrphanedRunOnTwoServersAtOnceMakeOneSuccessor() throws Exception {
        String runId = runOnAPastThreeLines("tk-many-");
        killA();
        sandboxes.exec(key, "touch " + gate(runId));

        serverC = JarServer.start(work, 19680, withNode("C"), "/health/ready");
        List<Api> servers = List.of(serverB.api(), serverC.api());
        ExecutorService pool = Executors.newFixedThreadPool(5);
        List<CompletableFuture<List<String>>> clients = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Api api = servers.get(i % 2);
            clients.add(
                    CompletableFuture.supplyAsync(
                            () ->
                                    new Runs(api, Api.TENANT_A)
                                            .transcript(runId, null).stream()
                                                    .map(
                                                            e ->
                                                                    Chunks.fingerprint(
                                                                            Api.parse(e.data())))
                                                    .toList(),
                            pool));
        }
        for (CompletableFuture<List<String>> c : clients) {
            assertThat(c.get()).containsExactlyElementsOf(expected(runId));
        }
        pool.shutdown();
        assertThat(new Runs(serverB.api(), Api.TENANT_A).get(runId).getInt("driverEpoch"))
                .isEqualTo(2);
    }

    /** CD-02: a cancel landing on another server aborts the run there and destroys its sandbox. */
    @Test
    void aCancelOnTheOtherServerStopsTheDriverAndDestroysTheSandbox() {
        startA();
        Sandboxes own = new Sandboxes(serverB.api(), Api.TENANT_A);
        String ownKey =
                own.ensure("{\"definitionId\":\"takeover-cancel-" + UUID.randomUUID() + "\"}")
                        .getString("key");
        String runId = "tk-cancel-" + UUID.randomUUID();
        new Runs(serverA.api(), Api.TENANT_A)
                .start(
                        Runs.runBody(
                                runId,
                                "{\"key\":\"" + ownKey + "\"}",
                                "echo started; sleep 120",
                                ""));
        awaitStored(serverB.api(), runId, 3);
        Runs onB = new Runs(serverB.api(), Api.TENANT_A);
        assertThat(onB.cancel(runId).statusCode()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () -> assertThat(onB.get(runId).getString("status")).isEqualTo("aborted"));
        assertThat(onB.get(runId).getInt("driverEpoch"))
                .as("the healthy driver was never fenced out")
                .isEqualTo(1);
        assertThat(DockerCli.containersWithLabels("dev.agentbox.key=" + ownKey)).isEmpty();
        List<String> types =
                onB.transcript(runId, null).stream().map(SseClient.Event::name).toList();
        assertThat(types.get(types.size() - 1)).isEqualTo("RUN_ERROR");
    }

    @Test
    void aJournalRewrittenAfterItWasStoredFailsTheTakeoverAsReplayDiverged() throws Exception {
        String runId = runOnAPastThreeLines("tk-diverge-");
        // Rewritten while A still lives (its tail follows the old file and reads nothing new:
        // the agent waits at its gate), so the successor that starts as soon as A dies replays
        // the rewritten journal.
        String journal = "/tmp/agentbox-runs/" + JournalNames.encode(runId) + ".ndjson";
        sandboxes.exec(key, "sed -i 's/\"line2\"/\"LINE2\"/' " + journal);
        killA();
        sandboxes.exec(key, "touch " + gate(runId));

        Runs onB = new Runs(serverB.api(), Api.TENANT_A);
        List<SseClient.Event> transcript = onB.transcript(runId, null);
        SseClient.Event last = transcript.get(transcript.size() - 1);
        assertThat(last.name()).isEqualTo("RUN_ERROR");
        assertThat(Api.parse(last.data()).getString("code")).isEqualTo("replay-diverged");
        assertThat(transcript).noneSatisfy(e -> assertThat(e.data()).contains("line4"));
        JsonObject record = onB.get(runId);
        assertThat(record.getString("status")).isEqualTo("failed");
        assertThat(record.getJsonObject("error").getString("code")).isEqualTo("replay-diverged");
        assertThat(record.getJsonObject("error").getString("message")).contains("4");
    }

    /**
     * Takeovers of {@code cause} counted by the servers that may take A's runs over (B, and C while
     * it runs), from their /metrics.
     */
    private double takeovers(String cause) {
        Pattern line =
                Pattern.compile(
                        "(?m)^agentbox_runs_takeovers_total\\{[^}]*cause=\""
                                + cause
                                + "\"[^}]*\\} ([0-9.Ee+-]+)$");
        double sum = 0;
        List<Api> successors = new ArrayList<>(List.of(serverB.api()));
        if (serverC != null) {
            successors.add(serverC.api());
        }
        for (Api api : successors) {
            String metrics = api.send(api.request("/metrics?scope=application").GET()).body();
            Matcher m = line.matcher(metrics);
            while (m.find()) {
                sum += Double.parseDouble(m.group(1));
            }
        }
        return sum;
    }

    private Connection database() throws Exception {
        return DriverManager.getConnection(dbUrl, ItDatabase.user(), ItDatabase.password());
    }

    /** The server session recorded in the driver lease of {@code runId} (tenant-a's). */
    private long holderSession(String runId) throws Exception {
        try (Connection db = database();
                PreparedStatement q =
                        db.prepareStatement(
                                "SELECT l.holder_session FROM ab_lease l JOIN ab_run r ON l.name ="
                                        + " 'run-driver:' || r.run_pk WHERE r.tenant = 'tenant-a' AND"
                                        + " r.run_id = ?")) {
            q.setString(1, runId);
            try (ResultSet rs = q.executeQuery()) {
                assertThat(rs.next()).as("the run's driver lease").isTrue();
                long session = rs.getLong(1);
                assertThat(rs.wasNull()).as("the lease carries its holder's session").isFalse();
                return session;
            }
        }
    }

    /** pg_terminate_backend of the session holding the advisory lock {@code session}. */
    private boolean terminateBackendHolding(long session) throws Exception {
        try (Connection db = database();
                PreparedStatement kill =
                        db.prepareStatement(
                                "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype ="
                                        + " 'advisory' AND objsubid = 1 AND granted AND"
                                        + " ((classid::bigint << 32) | objid::bigint) = ?")) {
            kill.setLong(1, session);
            try (ResultSet rs = kill.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    /** SIGSTOP / SIGCONT the server JVM (the runnable jar forks it as a child of the launcher). */
    private static void pause(JarServer server) throws Exception {
        signal(server, "STOP");
    }

    private static void resume(JarServer server) throws Exception {
        signal(server, "CONT");
    }

    private static void signal(JarServer server, String sig) throws Exception {
        List<Long> pids = new ArrayList<>();
        pids.add(server.pid());
        ProcessHandle.of(server.pid())
                .ifPresent(p -> p.descendants().forEach(d -> pids.add(d.pid())));
        for (long pid : pids) {
            new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).start().waitFor();
        }
    }
}
