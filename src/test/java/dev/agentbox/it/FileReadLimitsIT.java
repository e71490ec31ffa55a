package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * File reads are admitted, then streamed with a bound: {@code /dev/zero}, FIFOs and files over
 * {@code agentbox.files.max-read-bytes} (8 MiB on the IT server) are {@code 413 file-too-large} at
 * once, and nothing a read started keeps running in the sandbox — not after a refusal, not after a
 * client that went away, not after a read the sandbox stalled.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FileReadLimitsIT {

    static final long CAP = 8L << 20;
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final Api api = Api.itServer();
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);
    private String key;
    private String base;

    @BeforeAll
    void ensure() {
        key =
                sandboxes
                        .ensure("{\"definitionId\":\"readlimits-" + UUID.randomUUID() + "\"}")
                        .getString("key");
        base = "/api/v1/sandboxes/" + key;
    }

    @AfterAll
    void cleanUp() {
        sandboxes.close();
    }

    private HttpResponse<String> read(String path) {
        return api.get(base + "/files?path=" + path, Api.TENANT_A);
    }

    /** Command lines of every process in the sandbox but the listing itself. */
    private String processes() {
        return sandboxes.stdout(
                key,
                "for f in /proc/[0-9]*/cmdline; do tr '\\000' ' ' < \"$f\" 2>/dev/null; echo; done");
    }

    private void nothingOfTheReadRuns(String path) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () ->
                                assertThat(processes())
                                        .as("no command of the read is left in the sandbox")
                                        .doesNotContain("head -c " + (CAP + 1) + " -- " + path)
                                        .doesNotContain("cat -- " + path));
    }

    @Test
    void devZeroIsRefusedAtOnceAsNotARegularFile() {
        long start = System.nanoTime();
        JsonObject p = assertProblem(read("/dev/zero"), 413, "file-too-large");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        assertThat(p.getString("detail")).contains("character device");
        assertThat(p.getJsonNumber("limit").longValue()).isEqualTo(CAP);
        nothingOfTheReadRuns("/dev/zero");
        assertThat(api.get("/health/live", Api.TENANT_A).statusCode()).isEqualTo(200);
    }

    @Test
    void aFifoIsRefusedWithoutOpeningIt() {
        sandboxes.exec(key, "mkfifo /workspace/pipe");
        long start = System.nanoTime();
        JsonObject p = assertProblem(read("pipe"), 413, "file-too-large");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        assertThat(p.getString("detail")).contains("FIFO");
        nothingOfTheReadRuns("/workspace/pipe");
    }

    @Test
    void aFileOverTheCapIsRefusedAndOneUnderItIsStreamedExactly() throws Exception {
        sandboxes.exec(
                key,
                "head -c "
                        + (CAP + 1)
                        + " /dev/zero > /workspace/over.bin && head -c "
                        + (CAP - 1)
                        + " /dev/urandom > /workspace/under.bin && sha256sum /workspace/under.bin > /workspace/under.sum");
        JsonObject p = assertProblem(read("over.bin"), 413, "file-too-large");
        assertThat(p.getString("detail"))
                .contains(String.valueOf(CAP + 1))
                .contains(String.valueOf(CAP));

        HttpResponse<byte[]> ok =
                HTTP.send(
                        api.request(base + "/files?path=under.bin", Api.TENANT_A).GET().build(),
                        HttpResponse.BodyHandlers.ofByteArray());
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.body()).hasSize((int) (CAP - 1));
        String expected = sandboxes.stdout(key, "cut -d' ' -f1 /workspace/under.sum").strip();
        assertThat(
                        java.util.HexFormat.of()
                                .formatHex(
                                        java.security.MessageDigest.getInstance("SHA-256")
                                                .digest(ok.body())))
                .isEqualTo(expected);
        nothingOfTheReadRuns("/workspace/under.bin");
    }

    @Test
    void aClientThatGoesAwayMidReadStopsTheReadingCommand() throws Exception {
        sandboxes.exec(key, "head -c " + (CAP - 1) + " /dev/urandom > /workspace/slow.bin");
        HttpResponse<InputStream> r =
                HTTP.send(
                        api.request(base + "/files?path=slow.bin", Api.TENANT_A).GET().build(),
                        HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        try (InputStream in = r.body()) {
            assertThat(in.readNBytes(1024)).hasSize(1024);
        }
        nothingOfTheReadRuns("/workspace/slow.bin");
    }

    /**
     * The tenant replaces {@code head} with a script that blocks forever on a FIFO nobody writes.
     * Through the engine that stalled the read until the internal deadline; over the sandbox
     * channel the helper reads the file itself, so the read is exact and prompt, and nothing of the
     * tenant's runs for it.
     *
     * <p>SC-09: a head the tenant replaced cannot stall or forge a file read.
     */
    @Test
    void aReplacedHeadCannotStallOrForgeARead() throws Exception {
        sandboxes.exec(
                key,
                "echo data > /workspace/stalled.txt && mkfifo /tmp/never && cp \"$(command -v head)\" /tmp/head.real "
                        + "&& printf '#!/bin/sh\\nread x < /tmp/never\\n' > \"$(command -v head)\"");
        try {
            long start = System.nanoTime();
            HttpResponse<byte[]> r =
                    HTTP.send(
                            api.request(base + "/files?path=stalled.txt", Api.TENANT_A)
                                    .timeout(Duration.ofSeconds(90))
                                    .GET()
                                    .build(),
                            HttpResponse.BodyHandlers.ofByteArray());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(new String(r.body())).isEqualTo("data\n");
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("not held by the tenant's head")
                    .isLessThan(Duration.ofSeconds(5));
            assertThat(processes())
                    .as("no reading command of the tenant's was started")
                    .doesNotContain("/workspace/stalled.txt")
                    .doesNotContain("read x");
        } finally {
            sandboxes.exec(key, "cat /tmp/head.real > \"$(command -v head)\"");
        }
    }
}
