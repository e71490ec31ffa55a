package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Process control over HTTP: closing a background process's stdin, sending it a chosen signal, and
 * killing an exec whose client went away.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProcessControlIT {

    private static final String TENANT_Q = TenantQuotasIT.TENANT_Q;

    private final Api api = Api.itServer();
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);
    private final Sandboxes q = new Sandboxes(api, TENANT_Q);
    private String dockerKey;
    private String localKey;

    @BeforeAll
    void ensure() {
        dockerKey =
                sandboxes
                        .ensure("{\"definitionId\":\"proc-" + UUID.randomUUID() + "\"}")
                        .getString("key");
        localKey =
                sandboxes
                        .ensure(
                                "{\"provider\":\"local\",\"definitionId\":\"proc-local-"
                                        + UUID.randomUUID()
                                        + "\"}")
                        .getString("key");
    }

    @AfterAll
    void cleanUp() {
        sandboxes.close();
        q.close();
    }

    @Test
    void closingStdinEndsTheInputOfAProcessThatReadsIt() {
        String pid = spawn(localKey, "cat");
        assertThat(post(localKey, "/processes/" + pid + "/stdin", "hello stdin\n").statusCode())
                .isEqualTo(204);
        assertThat(post(localKey, "/processes/" + pid + "/stdin?eof=true", "").statusCode())
                .isEqualTo(204);
        Output out = output(localKey, pid);
        assertThat(out.exitCode()).isZero();
        assertThat(out.stdout()).contains("hello stdin");
    }

    @Test
    void writeAndCloseIsOneCall() {
        String pid = spawn(localKey, "wc -c");
        assertThat(post(localKey, "/processes/" + pid + "/stdin?eof=true", "abcde").statusCode())
                .isEqualTo(204);
        Output out = output(localKey, pid);
        assertThat(out.exitCode()).isZero();
        assertThat(out.stdout().trim()).isEqualTo("5");
    }

    /** SC-08: stdin written and closed over the channel reaches cat. */
    @Test
    void closingStdinEndsTheInputOfADockerProcessOverTheSandboxChannel() {
        String pid = spawn(dockerKey, "cat; echo done");
        assertThat(
                        post(dockerKey, "/processes/" + pid + "/stdin", "over the channel\n")
                                .statusCode())
                .isEqualTo(204);
        assertThat(post(dockerKey, "/processes/" + pid + "/stdin?eof=true", "").statusCode())
                .isEqualTo(204);
        Output out = output(dockerKey, pid);
        assertThat(out.exitCode()).isZero();
        // the output's chunks, as this helper joins them: stdin's text, then what followed its end
        assertThat(out.stdout().replace("\n", "")).isEqualTo("over the channeldone");
    }

    /** SC-08: stdin of an exited process is refused. */
    @Test
    void writingToTheStdinOfAnExitedProcessIsRefusedClearly() {
        String pid = spawn(dockerKey, "true");
        assertThat(output(dockerKey, pid).exitCode()).isZero();
        assertProblem(
                post(dockerKey, "/processes/" + pid + "/stdin", "late"), 400, "invalid-request");
        assertThat(post(dockerKey, "/processes/" + pid + "/stdin?eof=true", "").statusCode())
                .as("closing twice, or after the end, is quiet")
                .isEqualTo(204);
        assertProblem(
                post(localKey, "/processes/nope/stdin?eof=maybe", ""), 400, "invalid-request");
    }

    @Test
    void aChosenSignalReachesTheProcessWhichMayTrapIt() {
        String pid =
                spawn(dockerKey, "trap 'echo got-int; exit 5' INT; while :; do sleep 0.1; done");
        // The trap must be set before the signal arrives: wait until the loop runs.
        Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> sandboxes.stdout(dockerKey, "ps -eo args").contains("sleep 0.1"));
        assertThat(delete(dockerKey, "/processes/" + pid + "?signal=SIGINT").statusCode())
                .isEqualTo(204);
        Output out = output(dockerKey, pid);
        assertThat(out.stdout()).contains("got-int");
        assertThat(out.exitCode()).isEqualTo(5);
    }

    @Test
    void aSignalOutsideTheSetIsRefusedAndAnUnknownProcessIsNotFound() {
        String pid = spawn(localKey, "sleep 60");
        try {
            assertProblem(
                    delete(localKey, "/processes/" + pid + "?signal=SEGV"), 400, "invalid-request");
            assertProblem(
                    delete(localKey, "/processes/" + pid + "?signal=9"), 400, "invalid-request");
            assertProblem(delete(localKey, "/processes/no-such-pid?signal=INT"), 404, "not-found");
            // Lower case without SIG is accepted too; TERM ends sleep.
            assertThat(delete(localKey, "/processes/" + pid + "?signal=term").statusCode())
                    .isEqualTo(204);
            assertThat(output(localKey, pid).exitCode()).isNotZero();
        } finally {
            delete(localKey, "/processes/" + pid);
        }
    }

    @Test
    void anExecWhoseClientLeftIsKilledAndReleasesItsSlot() throws Exception {
        // tenant-q has one concurrent-execs slot: a second exec succeeds only once it is free.
        String key =
                q.ensure("{\"definitionId\":\"proc-abandon-" + UUID.randomUUID() + "\"}")
                        .getString("key");
        String marker = "/tmp/marker-" + UUID.randomUUID();
        long started = System.nanoTime();
        sendAndLeave(key, "sleep 12; touch " + marker, Duration.ofSeconds(1));

        Awaitility.await()
                .atMost(Duration.ofSeconds(8))
                .pollInterval(Duration.ofMillis(500))
                .until(
                        () -> {
                            HttpResponse<String> r = q.execRaw(key, "ps -eo args");
                            return r.statusCode() == 200
                                    && !Api.object(r).getString("stdout").contains("sleep 12");
                        });
        assertThat(q.execRaw(key, "true").statusCode())
                .as("the abandoned exec's slot is free again")
                .isEqualTo(200);

        // Past the moment the command would have written its marker.
        long left = Duration.ofSeconds(14).toNanos() - (System.nanoTime() - started);
        if (left > 0) {
            Thread.sleep(left / 1_000_000);
        }
        assertThat(q.stdout(key, "test -e " + marker + " && echo present || echo absent"))
                .isEqualTo("absent\n");
    }

    @Test
    void aLongExecStillAnswersItsResultAfterLeadingWhitespace() {
        HttpResponse<String> r = sandboxes.execRaw(dockerKey, "sleep 3; echo late");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).startsWith(" ");
        JsonObject result = Api.parse(r.body().trim());
        assertThat(result.getInt("exitCode")).isZero();
        assertThat(result.getString("stdout")).isEqualTo("late\n");
    }

    /** Sends an exec, waits {@code stay}, then closes the socket without reading the answer. */
    private void sendAndLeave(String key, String command, Duration stay) throws Exception {
        URI uri = URI.create(api.baseUrl());
        byte[] body =
                Json.createObjectBuilder()
                        .add("command", command)
                        .build()
                        .toString()
                        .getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 5000);
            OutputStream out = socket.getOutputStream();
            String head =
                    "POST /api/v1/sandboxes/"
                            + key
                            + "/exec HTTP/1.1\r\nHost: "
                            + uri.getHost()
                            + ":"
                            + uri.getPort()
                            + "\r\nAuthorization: Bearer "
                            + TENANT_Q
                            + "\r\nContent-Type: application/json\r\nContent-Length: "
                            + body.length
                            + "\r\n\r\n";
            out.write(head.getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
            socket.setSoTimeout((int) stay.toMillis());
            InputStream in = socket.getInputStream();
            try {
                int b = in.read();
                throw new AssertionError("the exec answered before the client left: " + b);
            } catch (SocketTimeoutException expected) {
                // nothing yet: the command still runs; now the client goes away
            }
        }
    }

    private record Output(String stdout, int exitCode) {}

    private Output output(String key, String pid) {
        try (SseClient sse =
                SseClient.open(
                        api.request(
                                "/api/v1/sandboxes/" + key + "/processes/" + pid + "/output",
                                Api.TENANT_A))) {
            StringBuilder out = new StringBuilder();
            SseClient.Event e;
            while ((e = sse.next(Duration.ofSeconds(30))) != null && !e.name().equals("exit")) {
                if (e.name().equals("stdout")) {
                    out.append(e.data());
                }
            }
            assertThat(e).as("exit event").isNotNull();
            return new Output(out.toString(), Api.parse(e.data()).getInt("exitCode"));
        }
    }

    private String spawn(String key, String command) {
        HttpResponse<String> r =
                post(
                        key,
                        "/processes",
                        Json.createObjectBuilder().add("command", command).build().toString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return Api.object(r).getString("pid");
    }

    private HttpResponse<String> post(String key, String path, String body) {
        return api.send(
                api.request("/api/v1/sandboxes/" + key + path, Api.TENANT_A)
                        .header(
                                "Content-Type",
                                path.contains("/stdin") ? "text/plain" : "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    private HttpResponse<String> delete(String key, String path) {
        return api.send(api.request("/api/v1/sandboxes/" + key + path, Api.TENANT_A).DELETE());
    }
}
