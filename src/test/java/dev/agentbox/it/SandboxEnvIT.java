package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.testing.PostgresPass;
import jakarta.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code PATCH /sandboxes/{key}/env}: variables recorded with the sandbox and secrets put only into
 * its tmpfs secrets file reach every later command; neither changes the key.
 */
@PostgresPass
class SandboxEnvIT {

    private final Api api = Api.itServer();
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);
    private final String secret = "patched-s3cr3t-" + UUID.randomUUID();

    @AfterEach
    void cleanUp() {
        sandboxes.close();
    }

    private String body(String definition) {
        return "{\"definitionId\":\""
                + definition
                + "\",\"workspace\":{\"env\":{\"BASE\":\"b\",\"GONE\":\"g\"}}}";
    }

    @Test
    void patchedEnvAndSecretsReachLaterExecsAndProcessesButNeverTheRecordOrTheContainer() {
        String definition = "env-" + UUID.randomUUID();
        JsonObject ensured = sandboxes.ensure(body(definition));
        String key = ensured.getString("key");

        HttpResponse<String> patched =
                patch(
                        key,
                        "{\"env\":{\"K\":\"v 1\",\"GONE\":null},\"secrets\":{\"S\":"
                                + Runs.jsonString(secret)
                                + "}}",
                        Api.TENANT_A);
        assertThat(patched.statusCode()).as(patched.body()).isEqualTo(204);

        String probe =
                "echo \"$K|$BASE|${GONE-unset}\"; test \"$S\" = "
                        + shellQuote(secret)
                        + " && echo secret-ok";
        assertThat(sandboxes.stdout(key, probe)).isEqualTo("v 1|b|unset\nsecret-ok\n");

        assertThat(processStdout(key, sandboxes.start(key, probe).getString("pid")))
                .contains("v 1|b|unset")
                .contains("secret-ok");

        // A command's own env still wins over the recorded one.
        HttpResponse<String> own =
                api.send(
                        api.request("/api/v1/sandboxes/" + key + "/exec", Api.TENANT_A)
                                .header("Content-Type", "application/json")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                "{\"command\":\"echo $K $GONE\",\"env\":{\"K\":\"mine\",\"GONE\":\"back\"}}")));
        assertThat(Api.object(own).getString("stdout")).isEqualTo("mine back\n");

        String record = api.get("/api/v1/sandboxes/" + key, Api.TENANT_A).body();
        assertThat(record).doesNotContain(secret);
        assertThat(api.get("/api/v1/sandboxes", Api.TENANT_A).body()).doesNotContain(secret);
        assertThat(DockerCli.ok("inspect", ensured.getString("providerSandboxId")))
                .doesNotContain(secret);

        // A later ensure of the same body resumes the same key: the recorded env stays, the
        // secrets are those the ensure supplies (none here), as on every ensure.
        JsonObject again = sandboxes.ensure(body(definition));
        assertThat(again.getString("key")).isEqualTo(key);
        assertThat(again.getString("outcome")).isEqualTo("resumed");
        assertThat(sandboxes.stdout(key, "echo \"$K|${GONE-unset}|${S-none}\""))
                .isEqualTo("v 1|unset|none\n");

        // null removes a patched variable again; a removed variable comes back when set.
        assertThat(
                        patch(key, "{\"env\":{\"K\":null,\"GONE\":\"again\"}}", Api.TENANT_A)
                                .statusCode())
                .isEqualTo(204);
        assertThat(sandboxes.stdout(key, "echo \"${K-unset}|$GONE\"")).isEqualTo("unset|again\n");
    }

    @Test
    void patchedSecretsMergeWithTheInstalledOnesAndNullRemovesOne() {
        String key =
                sandboxes
                        .ensure(
                                "{\"definitionId\":\"env-secrets-"
                                        + UUID.randomUUID()
                                        + "\",\"workspace\":{\"secrets\":{\"FIRST\":\"one\",\"SECOND\":\"two\"}}}")
                        .getString("key");
        assertThat(
                        patch(
                                        key,
                                        "{\"secrets\":{\"SECOND\":null,\"THIRD\":\"three\"}}",
                                        Api.TENANT_A)
                                .statusCode())
                .isEqualTo(204);
        assertThat(sandboxes.stdout(key, "echo \"$FIRST|${SECOND-gone}|$THIRD\""))
                .isEqualTo("one|gone|three\n");
    }

    @Test
    void badPatchesAreRefusedAndAnotherTenantSeesNoSandbox() {
        String key =
                sandboxes
                        .ensure("{\"definitionId\":\"env-bad-" + UUID.randomUUID() + "\"}")
                        .getString("key");
        assertProblem(
                patch(key, "{\"env\":{\"1BAD\":\"x\"}}", Api.TENANT_A), 400, "invalid-request");
        assertProblem(
                patch(key, "{\"secrets\":{\"A-B\":\"x\"}}", Api.TENANT_A), 400, "invalid-request");
        assertProblem(patch(key, "{\"env\":{\"A\":1}}", Api.TENANT_A), 400, "invalid-request");
        assertProblem(
                patch(key, "{\"env\":{\"A\":\"x\"},\"other\":{}}", Api.TENANT_A),
                400,
                "invalid-request");
        assertProblem(patch(key, "{}", Api.TENANT_A), 400, "invalid-request");
        assertProblem(patch(key, "[]", Api.TENANT_A), 400, "invalid-request");
        assertProblem(patch(key, "{\"env\":{\"A\":\"x\"}}", Api.TENANT_B), 404, "not-found");
        assertProblem(
                patch("0".repeat(64), "{\"env\":{\"A\":\"x\"}}", Api.TENANT_A), 404, "not-found");
        assertThat(sandboxes.stdout(key, "echo \"${A-unset}\"")).isEqualTo("unset\n");
    }

    private HttpResponse<String> patch(String key, String json, String token) {
        return api.send(
                api.request("/api/v1/sandboxes/" + key + "/env", token)
                        .header("Content-Type", "application/json")
                        .method("PATCH", HttpRequest.BodyPublishers.ofString(json)));
    }

    private String processStdout(String key, String pid) {
        try (SseClient sse =
                SseClient.open(
                        api.request(
                                "/api/v1/sandboxes/" + key + "/processes/" + pid + "/output",
                                Api.TENANT_A))) {
            StringBuilder out = new StringBuilder();
            SseClient.Event e;
            while ((e = sse.next(Duration.ofSeconds(30))) != null && !e.name().equals("exit")) {
                if (e.name().equals("stdout")) {
                    out.append(e.data()).append('\n');
                }
            }
            assertThat(e).as("exit event").isNotNull();
            return out.toString();
        }
    }

    private static String shellQuote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
