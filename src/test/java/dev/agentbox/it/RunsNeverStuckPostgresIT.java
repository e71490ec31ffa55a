package dev.agentbox.it;

import static dev.agentbox.it.GatedAgent.AFTER_THREE;
import static dev.agentbox.it.GatedAgent.agent;
import static dev.agentbox.it.GatedAgent.expected;
import static dev.agentbox.it.GatedAgent.gate;
import static dev.agentbox.it.GatedAgent.storedFingerprints;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentbox.run.harness.Chunks;
import dev.agentbox.testing.PostgresPass;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * PostgreSQL pass only: runs never get stuck when servers die, whoever watches them. Server A (a
 * runnable jar) drives a run and dies; server B (another runnable jar, reaper every second) and the
 * IT server share the database and pick the run up. Lease TTL 3 s, renewal 1 s, quiet window 1.5 s,
 * detached runs eligible after 1 s. A runs with {@code liveness=lease}: its leases carry no
 * database session, so its death is seen only by lease expiry — the path a frozen or cut-off server
 * takes, and the one the reaper must cover (the session path is {@link TakeoverPostgresIT}'s).
 */
@PostgresPass
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunsNeverStuckPostgresIT {

    private Path work;
    private JarServer serverB;
    private JarServer serverA;
    private Sandboxes sandboxes;

    @BeforeAll
    void startB() throws Exception {
        work =
                java.nio.file.Files.createTempDirectory(
                        Path.of(System.getProperty("java.io.tmpdir")), "agentbox-never-stuck");
        serverB = JarServer.start(work, 19680, env("B", true), "/health/ready");
        sandboxes = new Sandboxes(serverB.api(), Api.TENANT_A);
    }

    @AfterEach
    void stopA() throws Exception {
        if (serverA != null) {
            serverA.close();
            serverA = null;
        }
    }

    @AfterAll
    void stopB() throws Exception {
        sandboxes.close();
        serverB.close();
    }

    private static Map<String, String> env(String node, boolean reaper) {
        Map<String, String> env = new HashMap<>(TakeoverPostgresIT.ENV);
        env.put("AGENTBOX_NODE_ID", node);
        env.put("AGENTBOX_REAPER_ENABLED", Boolean.toString(reaper));
        env.put("AGENTBOX_REAPER_INTERVAL_MS", "1000");
        env.put("AGENTBOX_REAPER_DETACHED_TTL_MS", "1000");
        return env;
    }

    private JarServer startA() {
        Map<String, String> env = env("A", false);
        env.put("AGENTBOX_TAKEOVER_LIVENESS", "lease");
        serverA = JarServer.start(work, 19780, env, "/health/ready");
        return serverA;
    }

    private String sandbox() {
        return sandboxes
                .ensure("{\"definitionId\":\"never-stuck-" + UUID.randomUUID() + "\"}")
                .getString("key");
    }

    private static void awaitStored(Api api, String runId, int chunks) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> storedFingerprints(api, runId).size() >= chunks);
    }

    private static void awaitStatus(Runs runs, String runId, String status, Duration within) {
        await().atMost(within)
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(
                        () -> assertThat(runs.get(runId).getString("status")).isEqualTo(status));
    }

    /**
     * Starts a gated run on A with a plain POST (nobody ever watches it) and waits until three
     * lines are stored.
     */
    private String neverWatchedRunOnA(String prefix, String key, String extra) {
        startA();
        String runId = prefix + UUID.randomUUID();
        new Runs(serverA.api(), Api.TENANT_A)
                .start(Runs.runBody(runId, "{\"key\":\"" + key + "\"}", agent(gate(runId)), extra));
        awaitStored(serverB.api(), runId, AFTER_THREE);
        return runId;
    }

    @Test
    void aNeverWatchedRunWhoseServerIsKilledIsDrivenOnByAnotherServersReaper() throws Exception {
        String key = sandbox();
        String runId = neverWatchedRunOnA("ns-kill-", key, ",\"destroyOnComplete\":true");
        serverA.kill();
        serverA = null;
        sandboxes.exec(key, "touch " + gate(runId));

        Runs onB = new Runs(serverB.api(), Api.TENANT_A);
        // Nobody attaches: only a reaper can take the run over.
        awaitStatus(onB, runId, "completed", Duration.ofSeconds(60));
        assertThat(storedFingerprints(serverB.api(), runId))
                .containsExactlyElementsOf(expected(runId));
        JsonObject record = onB.get(runId);
        assertThat(record.getInt("driverEpoch")).isEqualTo(2);
        assertThat(record.containsKey("detachedSince"))
                .as("never watched, never detached")
                .isFalse();
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () ->
                                assertThat(
                                                DockerCli.containersWithLabels(
                                                        "dev.agentbox.key=" + key))
                                        .as("destroyOnComplete")
                                        .isEmpty());
        sandboxes.forget(key);
    }

    @Test
    void aServerStoppedGracefullyLeavesItsUnwatchedRunToTheReaperOfAnother() throws Exception {
        String key = sandbox();
        String runId = neverWatchedRunOnA("ns-stop-", key, "");
        serverA.close();
        serverA = null;
        sandboxes.exec(key, "touch " + gate(runId));

        Runs onB = new Runs(serverB.api(), Api.TENANT_A);
        awaitStatus(onB, runId, "completed", Duration.ofSeconds(60));
        assertThat(storedFingerprints(serverB.api(), runId))
                .containsExactlyElementsOf(expected(runId));
        assertThat(DockerCli.containersWithLabels("dev.agentbox.key=" + key))
                .as("destroyOnComplete=false keeps it")
                .isNotEmpty();
    }

    @Test
    void aCancelOnAnotherServerLandsWhenTheRunsServerIsDead() throws Exception {
        String key = sandbox();
        String runId = neverWatchedRunOnA("ns-cancel-", key, "");
        serverA.kill();
        serverA = null;

        Runs onB = new Runs(serverB.api(), Api.TENANT_A);
        long t0 = System.nanoTime();
        assertThat(onB.cancel(runId).statusCode()).isEqualTo(202);
        // Lease TTL 3 s (at most that is left of it) + about 2 s to claim, destroy and record.
        awaitStatus(onB, runId, "aborted", Duration.ofSeconds(15));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        JsonObject record = onB.get(runId);
        assertThat(record.getJsonObject("error").getString("code")).isEqualTo("aborted");
        assertThat(record.getBoolean("cancelRequested")).isTrue();
        JsonArray log =
                Api.json(serverB.api().get(Runs.path(runId) + "/log", Api.TENANT_A)).asJsonArray();
        JsonObject last = log.getJsonObject(log.size() - 1).getJsonObject("chunk");
        assertThat(last.getString("type")).isEqualTo("RUN_ERROR");
        assertThat(last.getString("code")).isEqualTo("aborted");
        assertThat(DockerCli.containersWithLabels("dev.agentbox.key=" + key))
                .as("cancel destroys the sandbox")
                .isEmpty();
        assertThat(ms).as("cancel landed in %d ms", ms).isLessThan(10_000);
        sandboxes.forget(key);
    }

    @Test
    void aRewrittenPlainTextJournalLineFailsTheTakeoverReplayDivergedInsteadOfDuplicating()
            throws Exception {
        String key = sandbox();
        startA();
        String runId = "ns-diverge-" + UUID.randomUUID();
        String gate = gate(runId);
        String plain =
                "echo first-plain; echo second-plain; echo third-plain; while [ ! -f "
                        + gate
                        + " ]; do sleep 0.1; done;"
                        + " echo fourth-plain";
        new Runs(serverA.api(), Api.TENANT_A)
                .start(Runs.runBody(runId, "{\"key\":\"" + key + "\"}", plain, ""));
        // accepted, started, three agent.text chunks
        awaitStored(serverB.api(), runId, 5);
        serverA.kill();
        serverA = null;
        String journal =
                dev.agentbox.sandbox.spi.JournalNames.journalPath(
                        dev.agentbox.sandbox.spi.JournalNames.DEFAULT_DIR, runId);
        sandboxes.exec(
                key,
                "sed -i 's/second-plain/SECOND-rewritten/' '" + journal + "' && touch " + gate);

        Runs onB = new Runs(serverB.api(), Api.TENANT_A);
        awaitStatus(onB, runId, "failed", Duration.ofSeconds(60));
        JsonObject record = onB.get(runId);
        assertThat(record.getJsonObject("error").getString("code")).isEqualTo("replay-diverged");
        JsonArray log =
                Api.json(serverB.api().get(Runs.path(runId) + "/log", Api.TENANT_A)).asJsonArray();
        String all = log.toString();
        assertThat(all).doesNotContain("SECOND-rewritten").doesNotContain("fourth-plain");
        assertThat(all.split("second-plain", -1)).as("the original line once").hasSize(2);
        assertThat(log.getJsonObject(log.size() - 1).getJsonObject("chunk").getString("code"))
                .isEqualTo("replay-diverged");
    }

    @Test
    void aRunWatchedOnBStaysAttachedWhenItsViewerOnALeaves() throws Exception {
        String key = sandbox();
        startA();
        String runId = "ns-viewers-" + UUID.randomUUID();
        Runs onA = new Runs(serverA.api(), Api.TENANT_A);
        Runs onB = new Runs(serverB.api(), Api.TENANT_A);
        List<SseClient.Event> onBEvents;
        try (SseClient viewerA =
                SseClient.open(
                        serverA.api()
                                .request("/api/v1/runs", Api.TENANT_A)
                                .header("Content-Type", "application/json")
                                .header("Accept", "text/event-stream")
                                .method(
                                        "POST",
                                        HttpRequest.BodyPublishers.ofString(
                                                Runs.runBody(
                                                        runId,
                                                        "{\"key\":\"" + key + "\"}",
                                                        agent(gate(runId)),
                                                        ""))))) {
            assertThat(viewerA.status()).isEqualTo(200);
            assertThat(viewerA.next(Duration.ofSeconds(30))).isNotNull();
            try (SseClient viewerB = onB.events(runId, null)) {
                awaitStored(serverB.api(), runId, AFTER_THREE);
                viewerA.close();
                // A notices its viewer is gone on its next heartbeat write; B's viewer still
                // counts.
                Thread.sleep(4000);
                assertThat(onA.get(runId).containsKey("detachedSince"))
                        .as("watched on B: not detached")
                        .isFalse();
                sandboxes.exec(key, "touch " + gate(runId));
                onBEvents = Runs.drain(viewerB, Duration.ofSeconds(60));
            }
        }
        assertThat(onBEvents.stream().map(e -> Chunks.fingerprint(Api.parse(e.data()))).toList())
                .containsExactlyElementsOf(expected(runId));
        assertThat(onB.get(runId).getString("status")).isEqualTo("completed");
    }
}
