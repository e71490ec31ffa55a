package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Exec output and deadlines are bounded by the server, and one tenant's sabotaged sandbox cannot
 * delay another tenant's timeouts: {@code yes} ends truncated at the cap with nothing left running;
 * a sandbox whose {@code kill}, {@code cat} and {@code sleep} block forever still has its own
 * timed-out execs answered in bounded time, and another tenant's timeout fires on time meanwhile.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExecLimitsIT {

    static final long MAX_OUTPUT = 16L << 20;

    /**
     * HTTP/1.1, one connection per concurrent request: the timings measured here are the server's,
     * not those of an h2c upgrade shared by concurrent requests.
     */
    private static final HttpClient HTTP1 =
            HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(5))
                    .build();

    private final Api api = Api.itServer();
    private final Sandboxes alpha = new Sandboxes(api, Api.TENANT_A);
    private final Sandboxes beta = new Sandboxes(api, Api.TENANT_B);
    private String alphaKey;
    private String brokenKey;

    @BeforeAll
    void ensure() {
        alphaKey =
                alpha.ensure("{\"definitionId\":\"execlimits-" + UUID.randomUUID() + "\"}")
                        .getString("key");
        brokenKey =
                beta.ensure("{\"definitionId\":\"execlimits-broken-" + UUID.randomUUID() + "\"}")
                        .getString("key");
        // kill, cat and sleep become scripts that block forever (a read from a FIFO nobody writes).
        beta.exec(
                brokenKey,
                "mkfifo /tmp/never && for p in /usr/bin/kill /usr/bin/cat /usr/bin/sleep /bin/kill /bin/cat /bin/sleep; "
                        + "do rm -f $p; printf '#!/bin/sh\\nread x < /tmp/never\\n' > $p; chmod 755 $p; done");
    }

    @AfterAll
    void cleanUp() {
        alpha.close();
        beta.close();
    }

    private HttpResponse<String> exec(String token, String key, String command, Long timeoutMs) {
        var body = Json.createObjectBuilder().add("command", command);
        if (timeoutMs != null) {
            body.add("timeoutMs", timeoutMs);
        }
        try {
            return HTTP1.send(
                    api.request("/api/v1/sandboxes/" + key + "/exec", token)
                            .timeout(Duration.ofSeconds(120))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(body.build().toString()))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException("exec request failed: " + e, e);
        }
    }

    private String processes(Sandboxes s, String key) {
        return s.stdout(
                key,
                "for f in /proc/[0-9]*/cmdline; do tr '\\000' ' ' < \"$f\" 2>/dev/null; echo; done");
    }

    @Test
    void yesEndsTruncatedAtTheCapInBoundedTimeAndIsKilled() {
        long start = System.nanoTime();
        HttpResponse<String> r = exec(Api.TENANT_A, alphaKey, "yes agentbox-flood", null);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(r.statusCode()).isEqualTo(200);
        // 16 MiB in one JSON string is more than the client's JSON-P parser accepts: read the text.
        String body = r.body().replaceAll("\\s", "");
        assertThat(body)
                .contains("\"truncated\":true")
                .contains("\"stdout\":\"agentbox-flood\\nagentbox-flood\\n");
        assertThat((long) r.body().length())
                .as("the cap, plus JSON escapes of its newlines and the other fields")
                .isLessThanOrEqualTo(MAX_OUTPUT + MAX_OUTPUT / 15 + 200);
        assertThat(took).isLessThan(Duration.ofSeconds(60));
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () ->
                                assertThat(processes(alpha, alphaKey))
                                        .doesNotContain("yes agentbox-flood"));
    }

    @Test
    void anOrdinaryResultHasNoTruncatedField() {
        JsonObject v = Api.object(exec(Api.TENANT_A, alphaKey, "echo small", null));
        assertThat(v.getString("stdout")).isEqualTo("small\n");
        assertThat(v.containsKey("truncated")).isFalse();
    }

    @Test
    void aTimeoutAboveTheMaximumIsABadRequestNamingTheField() {
        JsonObject p =
                assertProblem(
                        exec(Api.TENANT_A, alphaKey, "true", 3_600_001L), 400, "invalid-request");
        assertThat(p.getString("field")).isEqualTo("timeoutMs");
        assertThat(exec(Api.TENANT_A, alphaKey, "true", 3_600_000L).statusCode()).isEqualTo(200);
    }

    @Test
    void theBrokenSandboxsOwnTimedOutExecsReturnInBoundedTime() {
        for (String command : List.of("sleep 600", "cat /etc/hostname", "/bin/kill -0 1")) {
            long start = System.nanoTime();
            HttpResponse<String> r = exec(Api.TENANT_B, brokenKey, command, 1000L);
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(Api.object(r).getInt("exitCode")).as(command).isEqualTo(124);
            assertThat(took)
                    .as(command + ": its timeout plus a small slack")
                    .isLessThan(Duration.ofSeconds(8));
        }
        Awaitility.await()
                .atMost(Duration.ofSeconds(15))
                .untilAsserted(
                        () ->
                                assertThat(processes(beta, brokenKey))
                                        .as(
                                                "the stalled commands were killed without the sandbox's kill")
                                        .doesNotContain("read x")
                                        .doesNotContain("/etc/hostname")
                                        .doesNotContain("sleep 600"));
    }

    @Test
    void anotherTenantsTimeoutFiresOnTimeWhileTheBrokenSandboxIsBeingKilled() {
        // Several stalled execs of the broken sandbox time out at once, then alpha's timeout
        // must still fire on time: no kill of beta's sandbox holds a thread alpha's needs.
        List<CompletableFuture<HttpResponse<String>>> broken = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            int n = i;
            broken.add(
                    CompletableFuture.supplyAsync(
                            () -> exec(Api.TENANT_B, brokenKey, "sleep " + (700 + n), 1000L)));
        }
        try {
            Thread.sleep(1200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long start = System.nanoTime();
        HttpResponse<String> r = exec(Api.TENANT_A, alphaKey, "sleep 600", 2000L);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(Api.object(r).getInt("exitCode")).isEqualTo(124);
        assertThat(took)
                .as("alpha's 2 s timeout plus a small slack")
                .isLessThan(Duration.ofSeconds(7));
        broken.forEach(f -> assertThat(f.join().statusCode()).isEqualTo(200));
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () -> assertThat(processes(alpha, alphaKey)).doesNotContain("sleep 600"));
    }
}
