package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code image} names only images on the allowlist, verbatim. The attack: tenant-b names tenant-a's
 * snapshot image — by name, by full id, by a 4-char id prefix — to start a sandbox holding
 * tenant-a's workspace and read it. Every spelling is {@code 400 image-not-allowed} and nothing is
 * created for tenant-b.
 */
class ImageAllowlistIT {

    private final Api api = Api.itServer();
    private final Sandboxes alpha = new Sandboxes(api, Api.TENANT_A);
    private final Sandboxes beta = new Sandboxes(api, Api.TENANT_B);

    @AfterEach
    void cleanUp() {
        alpha.close();
        beta.close();
    }

    private static String bodyWithImage(String image) {
        return "{\"definitionId\":\"img-"
                + UUID.randomUUID()
                + "\",\"image\":"
                + Json.createValue(image)
                + "}";
    }

    /**
     * Tenant b's containers made from {@code image}: other tests (and another IT server on the same
     * engine) make containers of tenant b meanwhile, none from alpha's snapshot.
     */
    private static List<String> betaContainersOf(String image) {
        String out =
                DockerCli.ok(
                        "ps",
                        "-aq",
                        "--filter",
                        "label=dev.agentbox.tenant=tenant-b",
                        "--filter",
                        "ancestor=" + image);
        return out.isEmpty() ? List.of() : List.of(out.split("\\s+"));
    }

    @Test
    void anotherTenantsSnapshotImageCannotBeNamedByNameIdOrIdPrefix() {
        String secretLine = "alpha-private-" + UUID.randomUUID();
        JsonObject a =
                alpha.ensure(
                        "{\"definitionId\":\"img-alpha-"
                                + UUID.randomUUID()
                                + "\",\"workspace\":{\"setup\":"
                                + "[\"echo "
                                + secretLine
                                + " > private.txt\"]},\"lifecycle\":{\"snapshot\":\"after-setup\"}}");
        String snapshot = a.getString("snapshotId");
        assertThat(snapshot).startsWith("agentbox/snapshot:");
        String id = DockerCli.ok("image", "inspect", "-f", "{{.Id}}", snapshot);
        String hex = id.replaceFirst("^sha256:", "");
        // the image really holds the file: what the attack was after
        assertThat(
                        DockerCli.ok(
                                "run",
                                "--rm",
                                "--network",
                                "none",
                                "--label",
                                "agentbox.test=image-allowlist",
                                snapshot,
                                "cat",
                                "/workspace/private.txt"))
                .contains(secretLine);

        for (String spelling :
                List.of(
                        snapshot,
                        id,
                        hex,
                        hex.substring(0, 12),
                        hex.substring(0, 4),
                        "agentbox/snapshot",
                        snapshot.replace("agentbox/snapshot:", "docker.io/agentbox/snapshot:"))) {
            HttpResponse<String> r = beta.ensureRaw(bodyWithImage(spelling));
            JsonObject problem = assertProblem(r, 400, "image-not-allowed");
            assertThat(problem.getString("field")).isEqualTo("image");
            assertThat(r.body()).doesNotContain(secretLine);
        }
        // the same through a run's inline sandbox
        HttpResponse<String> run =
                api.send(
                        api.request("/api/v1/runs", Api.TENANT_B)
                                .header("Content-Type", "application/json")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                "{\"runId\":\"img-"
                                                        + UUID.randomUUID()
                                                        + "\",\"threadId\":\"t\","
                                                        + "\"harness\":\"command\",\"command\":\"cat /workspace/private.txt\","
                                                        + "\"sandbox\":"
                                                        + bodyWithImage(hex.substring(0, 4))
                                                        + "}")));
        assertProblem(run, 400, "image-not-allowed");
        assertThat(run.body()).doesNotContain(secretLine);
        assertThat(betaContainersOf(snapshot)).isEmpty();
        assertThat(api.get("/api/v1/sandboxes", Api.TENANT_B).body()).doesNotContain(snapshot);
    }

    @Test
    void theOwnerAlsoCannotNameItsSnapshotAsImageOnlyRestoreReachesIt() {
        JsonObject a =
                alpha.ensure(
                        "{\"definitionId\":\"img-own-"
                                + UUID.randomUUID()
                                + "\","
                                + "\"lifecycle\":{\"snapshot\":\"after-setup\"}}");
        assertProblem(
                alpha.ensureRaw(bodyWithImage(a.getString("snapshotId"))),
                400,
                "image-not-allowed");
    }

    @Test
    void allowedImagesWorkAndEverythingElseIsA400() {
        JsonObject busybox = beta.ensure(bodyWithImage("agentbox/sandbox:busybox"));
        assertThat(beta.stdout(busybox.getString("key"), "echo ok")).isEqualTo("ok\n");
        JsonObject bookworm = beta.ensure(bodyWithImage("agentbox/sandbox:bookworm"));
        assertThat(beta.stdout(bookworm.getString("key"), "cat /etc/debian_version")).isNotBlank();

        JsonObject notLowercase =
                assertProblem(
                        beta.ensureRaw(bodyWithImage("NotLowercase")), 400, "image-not-allowed");
        assertThat(notLowercase.getString("field")).isEqualTo("image");
        for (String other :
                List.of(
                        "agentbox/sandbox:latest",
                        "agentbox/sandbox",
                        "agentbox/debian-base:bookworm",
                        "agentbox/sandbox@sha256:" + "0".repeat(64),
                        "busybox:latest")) {
            assertProblem(beta.ensureRaw(bodyWithImage(other)), 400, "image-not-allowed");
        }
        assertProblem(
                beta.ensureRaw(bodyWithImage("agentbox/sandbox:bookworm\n")),
                400,
                "invalid-request");
    }
}
