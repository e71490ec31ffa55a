package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The sandboxes that the runs of one test class made, destroyed when the class ends.
 *
 * <p>A run's sandbox outlives the run unless {@code destroyOnComplete} (and a thread's sandbox of
 * an agent is kept for the thread's next turn), so a test that fails before it reads its run's
 * {@code sandboxKey}, or that never deletes it, leaves a container running on a shared engine. A
 * class tracks each run id it starts; {@link #destroyAll()} stops runs that have not ended (their
 * sandbox could otherwise appear after the delete), deletes each run's sandbox, and asserts that no
 * container with the tenant's and the sandbox's labels is left. Only sandboxes of tracked runs are
 * touched: other classes and other servers share the engine and the tenant name.
 */
final class RunSandboxes {

    private final Api api;
    private final String token;
    private final String tenant;
    private final Runs runs;
    private final Set<String> runIds = new LinkedHashSet<>();

    /**
     * For runs started with {@code token}, whose tenant (the sandboxes' label) is {@code tenant}.
     */
    RunSandboxes(Api api, String token, String tenant) {
        this.api = api;
        this.token = token;
        this.tenant = tenant;
        this.runs = new Runs(api, token);
    }

    /** Remembers a run whose sandbox the class must destroy; returns {@code runId}. */
    synchronized String track(String runId) {
        runIds.add(runId);
        return runId;
    }

    /**
     * Destroys the sandbox of every tracked run and asserts that none of their containers is left.
     */
    synchronized void destroyAll() {
        Set<String> keys = new LinkedHashSet<>();
        for (String runId : runIds) {
            JsonObject run = endedRun(runId);
            if (run != null && run.containsKey("sandboxKey")) {
                keys.add(run.getString("sandboxKey"));
            }
        }
        List<String> failed = new ArrayList<>();
        for (String key : keys) {
            HttpResponse<String> r =
                    api.send(api.request("/api/v1/sandboxes/" + key, token).DELETE());
            if (r.statusCode() != 204 && r.statusCode() != 200 && r.statusCode() != 404) {
                failed.add(key + ": " + r.statusCode() + " " + r.body());
            }
        }
        runIds.clear();
        assertThat(failed).as("sandbox deletes that failed").isEmpty();
        for (String key : keys) {
            assertThat(
                            DockerCli.containersWithLabels(
                                    "dev.agentbox.tenant=" + tenant, "dev.agentbox.key=" + key))
                    .as("containers left of sandbox %s", key)
                    .isEmpty();
        }
    }

    /** The run's record once it has ended (cancelled first when it has not); null when unknown. */
    private JsonObject endedRun(String runId) {
        HttpResponse<String> r = api.get(Runs.path(runId), token);
        if (r.statusCode() == 404) {
            return null;
        }
        JsonObject run = Api.object(r);
        if (terminal(run)) {
            return run;
        }
        runs.cancel(runId);
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            run = runs.get(runId);
            if (terminal(run)) {
                return run;
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new AssertionError("run " + runId + " did not end after its cancel: " + run);
    }

    private static boolean terminal(JsonObject run) {
        return List.of("completed", "failed", "aborted").contains(run.getString("status", ""));
    }
}
