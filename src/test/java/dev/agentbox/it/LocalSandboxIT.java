package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The local (host process) provider over HTTP; the IT server enables it with its root under
 * target/.
 */
class LocalSandboxIT {

    private final Api api = Api.itServer();
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);

    @AfterEach
    void cleanUp() {
        sandboxes.close();
    }

    /** WS-06: a gone local sandbox is created again under the same key, setup runs again. */
    @Test
    void aLocalSandboxThatIsGoneIsCreatedAgainUnderTheSameKeyAndSetupReruns() throws Exception {
        String body =
                "{\"provider\":\"local\",\"definitionId\":\"local-"
                        + UUID.randomUUID()
                        + "\","
                        + "\"workspace\":{\"setup\":[\"echo ran >> .setup-runs\"]}}";
        JsonObject first = sandboxes.ensure(body);
        assertThat(first.getString("outcome")).isEqualTo("created");
        assertThat(first.getJsonObject("capabilities").getBoolean("snapshots")).isFalse();
        assertThat(sandboxes.stdout(first.getString("key"), "cat .setup-runs")).isEqualTo("ran\n");
        assertThat(sandboxes.ensure(body).getString("outcome")).isEqualTo("resumed");

        Path folder =
                Path.of(System.getProperty("agentbox.it.local-root"))
                        .resolve(first.getString("providerSandboxId"));
        assertThat(folder).isDirectory();
        try (Stream<Path> files = Files.walk(folder)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }

        JsonObject again = sandboxes.ensure(body);
        assertThat(again.getString("outcome")).isEqualTo("created");
        assertThat(again.getString("key")).isEqualTo(first.getString("key"));
        assertThat(sandboxes.stdout(again.getString("key"), "cat .setup-runs")).isEqualTo("ran\n");
    }

    @Test
    void aPathOutsideTheLocalSandboxIsRefused() {
        JsonObject s =
                sandboxes.ensure(
                        "{\"provider\":\"local\",\"definitionId\":\"local-"
                                + UUID.randomUUID()
                                + "\"}");
        assertProblem(
                api.get(
                        "/api/v1/sandboxes/"
                                + s.getString("key")
                                + "/files?path=../../../etc/hosts",
                        Api.TENANT_A),
                400,
                "path-outside-sandbox");
        assertProblem(
                api.send(
                        api.request(
                                        "/api/v1/sandboxes/" + s.getString("key") + "/snapshots",
                                        Api.TENANT_A)
                                .POST(java.net.http.HttpRequest.BodyPublishers.noBody())),
                422,
                "unsupported-capability");
    }
}
