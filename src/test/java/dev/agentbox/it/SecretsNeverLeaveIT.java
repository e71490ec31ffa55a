package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 12, item 7: a tenant's secret values never leave the sandbox through the service — not in a
 * problem detail, a run's error or stored log, nor in the server's log files; and a clone URL with
 * credentials is refused before it is logged.
 *
 * <p>Attacks: an agent or a setup step that prints {@code $API_KEY} (also base64-encoded) on stderr
 * and fails, so that the service copies its stderr tail into what it returns and stores; a caller
 * that puts a git token into the clone URL.
 */
class SecretsNeverLeaveIT {

    private final Api api = Api.itServer();
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);
    private final Runs runs = new Runs(api, Api.TENANT_A);
    private final String secret = "s3cr3t-" + UUID.randomUUID();

    /**
     * What {@code echo "$API_KEY" | base64} prints (GNU base64 wraps at 76; the value is shorter).
     */
    private final String secretBase64 =
            Base64.getEncoder().encodeToString((secret + "\n").getBytes(StandardCharsets.UTF_8));

    @AfterEach
    void cleanUp() {
        sandboxes.close();
    }

    private String definition() {
        return "secrets-" + UUID.randomUUID();
    }

    private String secretsJson() {
        return "\"secrets\":{\"API_KEY\":" + Runs.jsonString(secret) + "}";
    }

    @Test
    void aSetupStepThatPrintsTheSecretFailsWithAProblemThatMasksIt() throws Exception {
        String body =
                "{\"definitionId\":\""
                        + definition()
                        + "\",\"workspace\":{"
                        + secretsJson()
                        + ","
                        + "\"setup\":["
                        + Runs.jsonString(
                                "echo \"$API_KEY\" >&2; echo \"$API_KEY\" | base64 >&2; exit 3")
                        + "]}}";

        HttpResponse<String> r = sandboxes.ensureRaw(body);

        JsonObject problem = assertProblem(r, 422, "setup-failed");
        assertThat(problem.getInt("exitCode")).isEqualTo(3);
        assertThat(problem.getString("detail")).contains("***");
        assertNoSecretIn(r.body());
        assertNoSecretInServerFiles();
    }

    @Test
    void anAgentThatPrintsTheSecretOnStderrFailsWithAnErrorAndLogThatMaskIt() throws Exception {
        String key =
                sandboxes
                        .ensure(
                                "{\"definitionId\":\""
                                        + definition()
                                        + "\",\"workspace\":{"
                                        + secretsJson()
                                        + "}}")
                        .getString("key");
        String runId = "secret-run-" + UUID.randomUUID();

        runs.start(Runs.runBody(runId, "{\"key\":\"" + key + "\"}", leakingAgent(), ""));

        assertRunMasksTheSecret(runId);
    }

    @Test
    void aRunThatEnsuresItsOwnSandboxMasksTheSecretItWasGiven() throws Exception {
        String runId = "secret-run-" + UUID.randomUUID();
        String sandbox =
                "{\"definitionId\":\"" + definition() + "\",\"workspace\":{" + secretsJson() + "}}";

        runs.start(Runs.runBody(runId, sandbox, leakingAgent(), ",\"destroyOnComplete\":true"));

        assertRunMasksTheSecret(runId);
    }

    @Test
    void anAgentThatPrintsTheSecretOnStdoutHasItMaskedInTheStreamAndTheStoredLog()
            throws Exception {
        String key =
                sandboxes
                        .ensure(
                                "{\"definitionId\":\""
                                        + definition()
                                        + "\",\"workspace\":{"
                                        + secretsJson()
                                        + "}}")
                        .getString("key");
        String runId = "secret-stdout-" + UUID.randomUUID();

        runs.start(
                Runs.runBody(
                        runId,
                        "{\"key\":\"" + key + "\"}",
                        "echo \"the key is $API_KEY\"; echo \"$API_KEY\" | base64",
                        ""));

        List<SseClient.Event> events = runs.transcript(runId, null);
        assertThat(events.get(events.size() - 1).name()).isEqualTo("RUN_FINISHED");
        assertThat(events).anySatisfy(e -> assertThat(e.data()).contains("the key is ***"));
        for (SseClient.Event e : events) {
            assertNoSecretIn(e.data());
        }
        HttpResponse<String> log = api.get(Runs.path(runId) + "/log", Api.TENANT_A);
        assertThat(log.body()).contains("the key is ***");
        assertNoSecretIn(log.body());
        assertNoSecretInServerFiles();
    }

    @Test
    void aCloneUrlWithCredentialsIsRefusedBeforeItIsLoggedOrStored() throws Exception {
        String password = "ghp-" + UUID.randomUUID();
        for (String url :
                List.of(
                        "https://user:" + password + "@git.invalid/org/repo.git",
                        "https://" + password + "@git.invalid/org/repo.git")) {
            String body =
                    "{\"definitionId\":\""
                            + definition()
                            + "\",\"workspace\":{\"source\":{\"type\":\"git\",\"url\":"
                            + Runs.jsonString(url)
                            + "}}}";

            HttpResponse<String> r = sandboxes.ensureRaw(body);

            JsonObject problem = assertProblem(r, 400, "invalid-request");
            assertThat(problem.getString("field")).isEqualTo("workspace.source.url");
            assertThat(r.body()).doesNotContain(password);
            HttpResponse<String> asRun =
                    runs.startRaw(Runs.runBody("clone-" + UUID.randomUUID(), body, "true", ""));
            assertThat(assertProblem(asRun, 400, "invalid-request").getString("field"))
                    .isEqualTo("sandbox.workspace.source.url");
            assertThat(asRun.body()).doesNotContain(password);
        }
        assertThat(FilesContaining.find(serverDir().resolve("logs"), password)).isEmpty();
    }

    private static String leakingAgent() {
        return "echo \"$API_KEY\" >&2; echo \"$API_KEY\" | base64 >&2; exit 3";
    }

    private void assertRunMasksTheSecret(String runId) throws Exception {
        List<SseClient.Event> events = runs.transcript(runId, null);
        SseClient.Event last = events.get(events.size() - 1);
        assertThat(last.name()).isEqualTo("RUN_ERROR");
        JsonObject error = Api.parse(last.data());
        assertThat(error.getString("code")).isEqualTo("agent-exit");
        assertThat(error.getString("message"))
                .startsWith("Agent process exited with code 3")
                .contains("***");
        for (SseClient.Event e : events) {
            assertNoSecretIn(e.data());
        }
        JsonObject record = runs.get(runId);
        assertThat(record.getString("status")).isEqualTo("failed");
        assertThat(record.getJsonObject("error").getString("message")).contains("***");
        assertNoSecretIn(record.toString());
        HttpResponse<String> log = api.get(Runs.path(runId) + "/log", Api.TENANT_A);
        assertThat(log.statusCode()).isEqualTo(200);
        assertThat(log.body()).contains("RUN_ERROR").contains("***");
        assertNoSecretIn(log.body());
        assertNoSecretInServerFiles();
    }

    private void assertNoSecretIn(String text) {
        assertThat(text)
                .doesNotContain(secret)
                .doesNotContain(secretBase64.substring(0, secretBase64.length() - 4))
                .doesNotContain(
                        Base64.getEncoder()
                                .withoutPadding()
                                .encodeToString(secret.getBytes(StandardCharsets.UTF_8)));
    }

    /** The server's log files and, on the embedded database, its data files. */
    private void assertNoSecretInServerFiles() throws Exception {
        Path dir = serverDir();
        List<Path> places = new ArrayList<>(List.of(dir.resolve("logs")));
        if (!"postgresql".equals(System.getProperty("agentbox.it.db.kind"))) {
            places.add(dir.resolve("data"));
        }
        for (Path place : places) {
            assertThat(FilesContaining.find(place, secret))
                    .as("files under %s holding the secret", place)
                    .isEmpty();
            assertThat(FilesContaining.find(place, secretBase64.substring(0, 40)))
                    .as("files under %s holding its base64", place)
                    .isEmpty();
        }
        assertThat(Files.exists(dir.resolve("logs").resolve("messages.log"))).isTrue();
    }

    private static Path serverDir() {
        return Path.of(System.getProperty("agentbox.it.server.dir"));
    }
}
