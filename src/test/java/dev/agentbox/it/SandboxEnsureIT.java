package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.testing.PostgresPass;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Ensure over HTTP against the real Docker engine: reuse by key, bootstrap shell, failures. */
@PostgresPass
class SandboxEnsureIT {

    private final Api api = Api.itServer();
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);
    private final String definition = "def-" + UUID.randomUUID();

    @AfterEach
    void cleanUp() {
        sandboxes.close();
    }

    private String body(String setup, String extra) {
        return "{\"definitionId\":\""
                + definition
                + "\",\"threadId\":\"t-1\",\"workspace\":{\"setup\":"
                + setup
                + "}"
                + extra
                + "}";
    }

    /**
     * WS-01, WS-02: created with setup run once and recorded; the same inputs again resume the same
     * container, setup still once.
     */
    @Test
    void sameInputsResumeTheSameSandboxAndSetupRunsOnce() {
        String body = body("[\"echo ran >> /workspace/.setup-runs\"]", "");
        HttpResponse<String> first = sandboxes.ensureRaw(body);
        assertThat(first.statusCode()).isEqualTo(201);
        JsonObject created = Api.object(first);
        assertThat(created.getString("outcome")).isEqualTo("created");
        assertThat(created.getString("workspaceRoot")).isEqualTo("/workspace");
        assertThat(created.getString("threadId")).isEqualTo("t-1");
        assertThat(created.containsKey("snapshotId")).isFalse();

        HttpResponse<String> second = sandboxes.ensureRaw(body);
        assertThat(second.statusCode()).isEqualTo(200);
        JsonObject resumed = Api.object(second);
        assertThat(resumed.getString("outcome")).isEqualTo("resumed");
        assertThat(resumed.getString("key")).isEqualTo(created.getString("key"));
        assertThat(resumed.getString("providerSandboxId"))
                .isEqualTo(created.getString("providerSandboxId"));
        assertThat(
                        sandboxes
                                .stdout(created.getString("key"), "wc -l < /workspace/.setup-runs")
                                .trim())
                .isEqualTo("1");

        HttpResponse<String> got =
                api.get("/api/v1/sandboxes/" + created.getString("key"), Api.TENANT_A);
        assertThat(Api.object(got).getString("providerSandboxId"))
                .isEqualTo(created.getString("providerSandboxId"));
    }

    /** WS-03: a changed setup gives a new key and a new sandbox; the old record is untouched. */
    @Test
    void changedSetupGivesANewKeyAndLeavesTheOldSandboxAlone() {
        JsonObject a = sandboxes.ensure(body("[\"echo a\"]", ""));
        JsonObject b = sandboxes.ensure(body("[\"echo b\"]", ""));
        assertThat(b.getString("key")).isNotEqualTo(a.getString("key"));
        assertThat(b.getString("providerSandboxId")).isNotEqualTo(a.getString("providerSandboxId"));
        assertThat(api.get("/api/v1/sandboxes/" + a.getString("key"), Api.TENANT_A).statusCode())
                .isEqualTo(200);
    }

    /**
     * SH-01, SH-02, SH-03: cd and export carry over; a parallel group inherits them and is awaited.
     */
    @Test
    void cdAndExportCarryOverAndAParallelGroupStartsFromTheShellsStateAndIsAwaited() {
        JsonObject s =
                sandboxes.ensure(
                        body(
                                "[\"mkdir -p d; cd d; export FOO=bar\", \"echo \\\"$FOO $(pwd)\\\" > out\","
                                        + " [\"sleep 1; echo \\\"$FOO\\\" > p1\", \"pwd > p2\"], \"cat p1 p2 > joined\"]",
                                ""));
        String key = s.getString("key");
        assertThat(sandboxes.stdout(key, "cat /workspace/d/out")).isEqualTo("bar /workspace/d\n");
        assertThat(sandboxes.stdout(key, "cat /workspace/d/joined"))
                .isEqualTo("bar\n/workspace/d\n");
    }

    /**
     * SH-04: a failing step is setup-failed with its command, exit and tail; the sandbox is
     * destroyed, nothing recorded.
     */
    @Test
    void aFailingStepIsSetupFailedWithItsTailAndLeavesNothingBehind() {
        // This server's containers only: another lane's server may make tenant-a's meanwhile.
        String installation = "dev.agentbox.installation=" + Installations.of(api);
        List<String> before =
                DockerCli.containersWithLabels(
                        "dev.agentbox.managed=true", "dev.agentbox.tenant=tenant-a", installation);
        HttpResponse<String> r =
                sandboxes.ensureRaw(
                        body(
                                "[\"echo start\", \"echo boom >&2; exit 7\", \"touch /workspace/never\"]",
                                ""));
        JsonObject problem = assertProblem(r, 422, "setup-failed");
        assertThat(problem.getString("detail"))
                .startsWith("setup failed: echo boom >&2; exit 7 (exit 7)")
                .contains("boom");
        assertThat(problem.getInt("exitCode")).isEqualTo(7);
        assertThat(
                        DockerCli.containersWithLabels(
                                "dev.agentbox.managed=true",
                                "dev.agentbox.tenant=tenant-a",
                                installation))
                .containsExactlyInAnyOrderElementsOf(before);
        assertThat(api.get("/api/v1/sandboxes", Api.TENANT_A).body()).doesNotContain(definition);
    }

    /** SH-05: a step that kills its shell fails at once, shell exited before the sentinel. */
    @Test
    void aStepThatKillsItsShellFailsAtOnce() {
        long t0 = System.nanoTime();
        HttpResponse<String> r = sandboxes.ensureRaw(body("[\"kill -9 $$\", \"echo never\"]", ""));
        JsonObject problem = assertProblem(r, 422, "setup-failed");
        assertThat(problem.getString("detail")).contains("shell exited before the sentinel");
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(15_000);
    }

    /** SH-07: a step over the step timeout fails with timed out after the timeout. */
    @Test
    void aStepOverTheStepTimeoutIsKilledWithATimeoutError() {
        // The IT server runs with agentbox.bootstrap.step-timeout-ms=5000.
        HttpResponse<String> r = sandboxes.ensureRaw(body("[\"sleep 600\"]", ""));
        JsonObject problem = assertProblem(r, 422, "setup-failed");
        assertThat(problem.getString("detail")).contains("timed out after 5000ms");
    }

    @Test
    void twoConcurrentEnsuresOfOneKeyMakeExactlyOneContainer() {
        String body = body("[\"sleep 2\"]", "");
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            calls.add(CompletableFuture.supplyAsync(() -> sandboxes.ensureRaw(body)));
        }
        List<JsonObject> results =
                calls.stream().map(CompletableFuture::join).map(Api::object).toList();
        assertThat(results)
                .extracting(o -> o.getString("outcome"))
                .containsExactlyInAnyOrder("created", "resumed");
        assertThat(results.get(0).getString("providerSandboxId"))
                .isEqualTo(results.get(1).getString("providerSandboxId"));
        assertThat(
                        DockerCli.containersWithLabels(
                                "dev.agentbox.key=" + results.get(0).getString("key")))
                .hasSize(1);
    }

    /**
     * WS-05: the container removed by hand is restored from its snapshot without re-running setup.
     */
    @Test
    void afterTheContainerIsRemovedByHandTheSnapshotIsRestoredWithoutRerunningSetup() {
        String body =
                body(
                        "[\"echo ran >> /workspace/.setup-runs\"]",
                        ",\"lifecycle\":{\"snapshot\":\"after-setup\"}");
        JsonObject created = sandboxes.ensure(body);
        String snapshot = created.getString("snapshotId");
        assertThat(DockerCli.run("image", "inspect", snapshot).exitCode()).isZero();

        DockerCli.ok("rm", "-f", created.getString("providerSandboxId"));

        HttpResponse<String> again = sandboxes.ensureRaw(body);
        assertThat(again.statusCode()).isEqualTo(200);
        JsonObject restored = Api.object(again);
        assertThat(restored.getString("outcome")).isEqualTo("restored");
        assertThat(restored.getString("providerSandboxId"))
                .isNotEqualTo(created.getString("providerSandboxId"));
        assertThat(
                        sandboxes
                                .stdout(restored.getString("key"), "wc -l < /workspace/.setup-runs")
                                .trim())
                .isEqualTo("1");

        sandboxes.close();
        assertThat(DockerCli.run("image", "inspect", snapshot).exitCode())
                .as("snapshot deleted with the sandbox")
                .isNotZero();
    }

    @Test
    void aRecordedSandboxThatIsGoneIsCreatedAnewUnderTheSameKey() {
        String body = body("[\"echo ran >> /workspace/.setup-runs\"]", "");
        JsonObject created = sandboxes.ensure(body);
        DockerCli.ok("rm", "-f", created.getString("providerSandboxId"));
        HttpResponse<String> gone = sandboxes.execRaw(created.getString("key"), "true");
        assertProblem(gone, 404, "not-found");
        JsonObject again = sandboxes.ensure(body);
        assertThat(again.getString("outcome")).isEqualTo("created");
        assertThat(again.getString("key")).isEqualTo(created.getString("key"));
        assertThat(
                        sandboxes
                                .stdout(again.getString("key"), "wc -l < /workspace/.setup-runs")
                                .trim())
                .isEqualTo("1");
    }

    /** WS-07: reuse none gives distinct sandboxes. */
    @Test
    void reuseNoneMakesDistinctSandboxes() {
        String body = body("[]", ",\"lifecycle\":{\"reuse\":\"none\"}");
        assertThat(sandboxes.ensure(body).getString("key"))
                .isNotEqualTo(sandboxes.ensure(body).getString("key"));
    }

    @Test
    void invalidBodiesAreBadRequestsNamingTheField() {
        assertThat(
                        assertProblem(
                                        sandboxes.ensureRaw("{\"policy\":{\"network\":\"host\"}}"),
                                        400,
                                        "invalid-request")
                                .getString("field"))
                .isEqualTo("policy.network");
        assertThat(
                        assertProblem(
                                        sandboxes.ensureRaw("{\"workspace\":{\"setup\":[1]}}"),
                                        400,
                                        "invalid-request")
                                .getString("field"))
                .isEqualTo("workspace.setup[0]");
        assertThat(
                        assertProblem(
                                        sandboxes.ensureRaw("{\"provider\":\"nope\"}"),
                                        400,
                                        "invalid-request")
                                .getString("field"))
                .isEqualTo("provider");
        assertProblem(sandboxes.ensureRaw("{\"workspace\": "), 400, "invalid-request");
    }

    @Test
    void anotherTenantCannotSeeOrUseTheSandbox() {
        JsonObject s = sandboxes.ensure(body("[]", ""));
        String key = s.getString("key");
        assertProblem(api.get("/api/v1/sandboxes/" + key, Api.TENANT_B), 404, "not-found");
        assertProblem(new Sandboxes(api, Api.TENANT_B).execRaw(key, "true"), 404, "not-found");
        assertProblem(
                api.send(api.request("/api/v1/sandboxes/" + key, Api.TENANT_B).DELETE()),
                404,
                "not-found");
        assertThat(api.get("/api/v1/sandboxes", Api.TENANT_B).body()).doesNotContain(key);
        assertThat(api.get("/api/v1/sandboxes", Api.TENANT_A).body()).contains(key);
    }

    @Test
    void deleteDestroysTheContainerAndTheRecordOnce() {
        JsonObject s = sandboxes.ensure(body("[]", ""));
        String key = s.getString("key");
        assertThat(sandboxes.delete(key).statusCode()).isEqualTo(204);
        sandboxes.forget(key);
        assertThat(DockerCli.containersWithLabels("dev.agentbox.key=" + key)).isEmpty();
        assertProblem(sandboxes.delete(key), 404, "not-found");
        assertProblem(api.get("/api/v1/sandboxes/" + key, Api.TENANT_A), 404, "not-found");
    }

    @Test
    void anIdleSandboxIsDestroyedAfterItsKeepAlive() {
        // The IT server checks for idle sandboxes every 2 s.
        JsonObject s = sandboxes.ensure(body("[]", ",\"lifecycle\":{\"keepAliveMs\":1000}"));
        String key = s.getString("key");
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(30))
                .until(() -> api.get("/api/v1/sandboxes/" + key, Api.TENANT_A).statusCode() == 404);
        assertThat(DockerCli.containersWithLabels("dev.agentbox.key=" + key)).isEmpty();
        sandboxes.forget(key);
    }

    /**
     * RN-06: the sandboxes list walked by its links is the whole list, oldest first, none repeated.
     */
    @Test
    void theSandboxesListPagesByLinkOldestFirstWithoutLosingOrRepeatingOne() {
        List<String> made = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            made.add(
                    sandboxes
                            .ensure("{\"definitionId\":\"" + definition + "-page-" + i + "\"}")
                            .getString("key"));
        }
        // A sandbox of the provider's default image and no published port shows neither.
        JsonObject first = Api.object(api.get("/api/v1/sandboxes/" + made.get(0), Api.TENANT_A));
        assertThat(first.containsKey("image")).isFalse();
        assertThat(first.containsKey("ports")).isFalse();
        List<String> whole =
                Api.json(api.get("/api/v1/sandboxes", Api.TENANT_A))
                        .asJsonArray()
                        .getValuesAs(JsonObject.class)
                        .stream()
                        .map(o -> o.getString("key"))
                        .toList();
        List<String> walked = new ArrayList<>();
        String next = "/api/v1/sandboxes?limit=2";
        while (next != null) {
            HttpResponse<String> page = api.get(next, Api.TENANT_A);
            assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
            Api.json(page)
                    .asJsonArray()
                    .getValuesAs(JsonObject.class)
                    .forEach(o -> walked.add(o.getString("key")));
            next =
                    page.headers()
                            .firstValue("Link")
                            .map(l -> l.replaceFirst("^<([^>]*)>; rel=\"next\"$", "$1"))
                            .orElse(null);
            assertThat(walked.size()).isLessThanOrEqualTo(whole.size());
        }
        assertThat(walked).containsExactlyElementsOf(whole).doesNotHaveDuplicates();
        assertThat(walked.stream().filter(made::contains).toList()).containsExactlyElementsOf(made);
        assertThat(Api.json(api.get("/api/v1/sandboxes", Api.TENANT_B)).asJsonArray().toString())
                .doesNotContain(made.get(0));
        assertProblem(api.get("/api/v1/sandboxes?limit=-1", Api.TENANT_A), 400, "invalid-request");
        assertProblem(
                api.get("/api/v1/sandboxes?cursor=!!!", Api.TENANT_A), 400, "invalid-request");
    }
}
