package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code workspace.source.type: "local"} over HTTP (WS-10..WS-12): a host tree under the IT
 * server's {@code agentbox.sources.local.root} arrives in {@code /workspace} of a Docker sandbox
 * and of a local one; an escape, a symlink leading out and a tree over the bounds (4 MiB, 200
 * entries on the IT server) are {@code 400 invalid-request} naming {@code workspace.source.path},
 * with no container made and nothing recorded.
 */
class LocalSourceIT {

    private static final byte[] DATA = {0, 1, 2, (byte) 250, '\n', 'x'};

    private final Api api = Api.itServer();
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);
    private final String definition = "local-src-" + UUID.randomUUID();
    private final Path root = Path.of(System.getProperty("agentbox.it.local-sources-root"));
    private final String tree = "tree-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeEach
    void makeTree() throws IOException {
        Path t = Files.createDirectories(root.resolve(tree));
        Files.createDirectories(t.resolve("src/lib"));
        Files.write(t.resolve("src/lib/data.bin"), DATA);
        Path script = Files.writeString(t.resolve("run.sh"), "#!/bin/sh\necho ran in $(pwd)\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.createSymbolicLink(t.resolve("link"), Path.of("src/lib/data.bin"));
    }

    @AfterEach
    void cleanUp() throws IOException {
        sandboxes.close();
        try (Stream<Path> files = Files.walk(root.resolve(tree))) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private String body(String provider, String path, String setup) {
        return Json.createObjectBuilder()
                .add("provider", provider)
                .add("definitionId", definition)
                .add(
                        "workspace",
                        Json.createObjectBuilder()
                                .add(
                                        "source",
                                        Json.createObjectBuilder()
                                                .add("type", "local")
                                                .add("path", path))
                                .add("setup", Json.createArrayBuilder().add(setup)))
                .build()
                .toString();
    }

    private void assertTreeArrived(JsonObject s, String expectedRoot) {
        String key = s.getString("key");
        HttpResponse<byte[]> file;
        try {
            file =
                    HttpClient.newHttpClient()
                            .send(
                                    api.request(
                                                    "/api/v1/sandboxes/"
                                                            + key
                                                            + "/files?path=src/lib/data.bin",
                                                    Api.TENANT_A)
                                            .GET()
                                            .build(),
                                    HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
        assertThat(file.statusCode()).isEqualTo(200);
        assertThat(file.body()).containsExactly(DATA);
        assertThat(sandboxes.stdout(key, "cat ran.txt")).isEqualTo("ran in " + expectedRoot + "\n");
        assertThat(
                        sandboxes.stdout(
                                key,
                                "stat -c %a run.sh; readlink link; cmp link src/lib/data.bin && echo same"))
                .isEqualTo("755\nsrc/lib/data.bin\nsame\n");
    }

    @Test
    void ws11TheTreeArrivesInTheDockerWorkspaceWithNestedDirectoriesExactBytesExecBitAndSymlink() {
        JsonObject s = sandboxes.ensure(body("docker", tree, "./run.sh > ran.txt"));
        assertThat(s.getString("outcome")).isEqualTo("created");
        assertTreeArrived(s, "/workspace");
        // The agent can change what was copied.
        assertThat(sandboxes.stdout(s.getString("key"), "echo more >> src/lib/data.bin && echo ok"))
                .isEqualTo("ok\n");
    }

    @Test
    void ws11TheTreeArrivesInALocalSandboxToo() {
        JsonObject s =
                sandboxes.ensure(
                        body("local", root.resolve(tree).toString(), "./run.sh > ran.txt"));
        assertThat(s.getString("outcome")).isEqualTo("created");
        // The setup shell runs in the sandbox's host folder, named by its id.
        assertTreeArrived(
                s,
                Path.of(System.getProperty("agentbox.it.local-root"))
                        .resolve(s.getString("providerSandboxId"))
                        .toString());
    }

    /** The sandboxes of this server's installation for tenant-a, learnt from a sandbox it made. */
    private List<String> containersOfThisServer() {
        JsonObject probe =
                sandboxes.ensure(
                        "{\"definitionId\":\""
                                + definition
                                + "-probe\",\"lifecycle\":{\"reuse\":\"definition\"}}");
        String installation =
                DockerCli.ok(
                                "inspect",
                                "-f",
                                "{{index .Config.Labels \"dev.agentbox.installation\"}}",
                                probe.getString("providerSandboxId"))
                        .strip();
        return DockerCli.containersWithLabels(
                "dev.agentbox.installation=" + installation, "dev.agentbox.tenant=tenant-a");
    }

    private void assertRefusedLeavingNothing(String path, String detailPart) {
        List<String> before = containersOfThisServer();
        JsonObject problem =
                assertProblem(
                        sandboxes.ensureRaw(body("docker", path, "touch /workspace/never")),
                        400,
                        "invalid-request");
        assertThat(problem.getString("field")).isEqualTo("workspace.source.path");
        assertThat(problem.getString("detail")).contains(detailPart);
        assertThat(problem.getString("detail")).doesNotContain(root.toString());
        assertThat(containersOfThisServer()).containsExactlyInAnyOrderElementsOf(before);
        assertThat(api.get("/api/v1/sandboxes", Api.TENANT_A).body())
                .doesNotContain("\"" + definition + "\"");
    }

    @Test
    void ws10ADotDotEscapeOrAnAbsolutePathOutsideTheRootIsRefused() {
        assertRefusedLeavingNothing(tree + "/../../outside", "leaves the local source root");
        assertRefusedLeavingNothing("/etc", "leaves the local source root");
    }

    @Test
    void ws10ASymlinkLeadingOutOfTheRootIsRefused() throws IOException {
        Path t = root.resolve(tree);
        Files.createSymbolicLink(t.resolve("escape"), Path.of("/etc"));
        assertRefusedLeavingNothing(tree + "/escape", "leads out of the local source root");

        Files.delete(t.resolve("escape"));
        Files.createSymbolicLink(t.resolve("passwd"), Path.of("/etc/passwd"));
        assertRefusedLeavingNothing(
                tree, "symlink that is absolute or leads out of the copied directory: passwd");

        Files.delete(t.resolve("passwd"));
        Files.createSymbolicLink(t.resolve("src/up"), Path.of("../../.."));
        assertRefusedLeavingNothing(tree, "leads out of the copied directory: src/up");
    }

    @Test
    void ws12ATreeOverTheByteOrEntryBoundIsRefusedWithTheCeiling() throws IOException {
        Path t = root.resolve(tree);
        try (RandomAccessFile big = new RandomAccessFile(t.resolve("big.bin").toFile(), "rw")) {
            big.setLength(5L * 1024 * 1024);
        }
        assertRefusedLeavingNothing(tree, "more than 4194304 bytes");
        Files.delete(t.resolve("big.bin"));

        Path many = Files.createDirectories(t.resolve("many"));
        for (int i = 0; i < 200; i++) {
            Files.writeString(many.resolve("f" + i), "x");
        }
        assertRefusedLeavingNothing(tree, "more than 200 entries");
    }

    @Test
    void ws10AMissingPathOrAFileIsRefused() {
        assertRefusedLeavingNothing(tree + "/nope", "does not exist");
        assertRefusedLeavingNothing(tree + "/run.sh", "is not a directory");
    }
}
