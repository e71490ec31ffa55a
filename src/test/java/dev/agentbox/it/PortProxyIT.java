package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The port proxy: a server a sandbox starts after creation, on a port nobody declared, is reached
 * through agentbox under the API's own bearer auth and tenant check, without anything published on
 * the host.
 */
class PortProxyIT {

    private static final String BUSYBOX = "agentbox/sandbox:busybox";

    /** A CGI script that answers with its environment (the request's fields) and its body. */
    private static final String ECHO_CGI =
            "#!/bin/sh\n"
                    + "printf 'Content-Type: text/plain\\r\\nX-From-Sandbox: yes\\r\\n"
                    + "Set-Cookie: sandbox=1\\r\\nClear-Site-Data: *\\r\\n"
                    + "Content-Security-Policy: img-src data:\\r\\n\\r\\n'\n"
                    + "env | sort\n"
                    + "echo body=$(head -c ${CONTENT_LENGTH:-0})\n";

    /**
     * A peer that reads a request head, switches protocols, greets with the request line it got,
     * then echoes every byte: after the {@code 101} nothing but raw bytes crosses the relay.
     */
    private static final String UPGRADE_ECHO =
            "#!/bin/sh\n"
                    + "cr=$(printf '\\r')\n"
                    + "IFS= read -r first\n"
                    + "while IFS= read -r line; do [ -z \"${line%$cr}\" ] && break; done\n"
                    + "printf 'HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\n"
                    + "Connection: Upgrade\\r\\nSec-WebSocket-Accept: test\\r\\n\\r\\n'\n"
                    + "echo \"hello ${first%$cr}\"\n"
                    + "exec cat\n";

    /** tenant-q's own quotas (pom.xml): 2 streams. */
    private static final String TENANT_Q = "token-q";

    private final Api api = Api.itServer();
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);
    private final Sandboxes quotaTenant = new Sandboxes(api, TENANT_Q);

    @AfterEach
    void cleanUp() {
        sandboxes.close();
        quotaTenant.close();
    }

    private JsonObject sandbox(String network) {
        return sandbox(sandboxes, network, "");
    }

    private static JsonObject sandbox(Sandboxes of, String network, String ports) {
        return of.ensure(
                "{\"definitionId\":\"ports-"
                        + UUID.randomUUID()
                        + "\",\"image\":\""
                        + BUSYBOX
                        + "\",\"policy\":{\"network\":\""
                        + network
                        + "\""
                        + ports
                        + "}}");
    }

    private void put(String key, String path, String content) {
        put(key, path, content, Api.TENANT_A);
    }

    private void put(String key, String path, String content, String token) {
        HttpResponse<String> r =
                api.send(
                        api.request("/api/v1/sandboxes/" + key + "/files?path=" + path, token)
                                .PUT(HttpRequest.BodyPublishers.ofString(content)));
        assertThat(r.statusCode()).as(r.body()).isBetween(200, 204);
    }

    /** A bridge sandbox whose busybox httpd serves www/ on 8081, started after creation. */
    private String serving() {
        String key = sandbox("bridge").getString("key");
        put(key, "www/index.html", "served through the proxy");
        put(key, "www/cgi-bin/echo", ECHO_CGI);
        sandboxes.exec(key, "chmod +x www/cgi-bin/echo");
        sandboxes.start(key, "httpd -f -p 8081 -h /workspace/www");
        return key;
    }

    private String proxyUrl(String key, int port) {
        JsonObject channel =
                Api.object(api.get("/api/v1/sandboxes/" + key + "/ports/" + port, Api.TENANT_A));
        assertThat(channel.getBoolean("proxied")).isTrue();
        assertThat(channel.getJsonObject("headers")).isEmpty();
        return channel.getString("url");
    }

    private HttpResponse<String> awaitAnswer(HttpRequest.Builder request) {
        return awaitAnswer(api, request);
    }

    /** The proxy's first answer other than {@code 502} (nothing listens yet), within 20 s. */
    static HttpResponse<String> awaitAnswer(Api api, HttpRequest.Builder request) {
        AtomicReference<HttpResponse<String>> last = new AtomicReference<>();
        Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(300))
                .until(
                        () -> {
                            last.set(api.send(request));
                            return last.get().statusCode() != 502;
                        });
        return last.get();
    }

    @Test
    void aPortOpenedAfterCreationIsServedThroughTheProxyAndNothingIsPublished() {
        String key = serving();
        String url = proxyUrl(key, 8081);
        assertThat(url)
                .isEqualTo(api.baseUrl() + "/api/v1/sandboxes/" + key + "/ports/8081/proxy/");

        HttpResponse<String> page =
                awaitAnswer(
                        HttpRequest.newBuilder(URI.create(url + "index.html"))
                                .header("Authorization", "Bearer " + Api.TENANT_A));
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).isEqualTo("served through the proxy");

        HttpResponse<String> echoed =
                api.send(
                        HttpRequest.newBuilder(URI.create(url + "cgi-bin/echo?q=1&r=two"))
                                .header("Authorization", "Bearer " + Api.TENANT_A)
                                .header("Cookie", "agentbox-session=secret")
                                .header("X-Test", "passed-along")
                                .POST(HttpRequest.BodyPublishers.ofString("posted-body")));
        assertThat(echoed.statusCode()).isEqualTo(200);
        assertThat(echoed.body())
                .contains("REQUEST_METHOD=POST")
                .contains("REQUEST_URI=/cgi-bin/echo?q=1&r=two")
                .contains("HTTP_X_TEST=passed-along")
                .contains("HTTP_X_FORWARDED_PREFIX=/api/v1/sandboxes/" + key + "/ports/8081/proxy")
                .contains("HTTP_X_FORWARDED_PROTO=http")
                .contains("body=posted-body")
                .doesNotContain("HTTP_AUTHORIZATION")
                .doesNotContain(Api.TENANT_A)
                .doesNotContain("HTTP_COOKIE");
        assertThat(echoed.headers().firstValue("X-From-Sandbox")).hasValue("yes");
        assertThat(echoed.headers().firstValue("Set-Cookie")).isEmpty();
        // Its pages run in an opaque origin, never as agentbox's, and cannot wipe its storage;
        // a policy of its own only adds restrictions to that.
        assertThat(echoed.headers().allValues("Content-Security-Policy"))
                .containsExactlyInAnyOrder(
                        "sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads",
                        "img-src data:");
        assertThat(echoed.headers().firstValue("Clear-Site-Data")).isEmpty();

        HttpResponse<String> head =
                api.send(
                        HttpRequest.newBuilder(URI.create(url + "index.html"))
                                .header("Authorization", "Bearer " + Api.TENANT_A)
                                .method("HEAD", HttpRequest.BodyPublishers.noBody()));
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.headers().firstValue("Content-Length"))
                .hasValue(String.valueOf("served through the proxy".length()));
        assertThat(head.body()).isEmpty();

        String container =
                Api.object(api.get("/api/v1/sandboxes/" + key, Api.TENANT_A))
                        .getString("providerSandboxId");
        assertThat(DockerCli.ok("inspect", "-f", "{{json .HostConfig.PortBindings}}", container))
                .doesNotContain("8081");
        assertThat(DockerCli.ok("inspect", "-f", "{{json .NetworkSettings.Ports}}", container))
                .doesNotContain("8081");
    }

    @Test
    void theProxyTakesTheApiBearerTokenAndOnlyTheOwnersTenant() {
        String key = serving();
        String url = proxyUrl(key, 8081);
        awaitAnswer(
                HttpRequest.newBuilder(URI.create(url + "index.html"))
                        .header("Authorization", "Bearer " + Api.TENANT_A));

        HttpResponse<String> anonymous =
                api.send(HttpRequest.newBuilder(URI.create(url + "index.html")));
        assertProblem(anonymous, 401, "unauthorized");
        assertThat(anonymous.headers().firstValue("WWW-Authenticate")).isPresent();
        assertProblem(
                api.send(
                        HttpRequest.newBuilder(URI.create(url + "index.html"))
                                .header("Authorization", "Bearer not-a-token")),
                401,
                "unauthorized");
        HttpResponse<String> otherTenant =
                api.send(
                        HttpRequest.newBuilder(URI.create(url + "index.html"))
                                .header("Authorization", "Bearer " + Api.TENANT_B));
        assertProblem(otherTenant, 404, "not-found");
        assertThat(otherTenant.body()).doesNotContain("served through the proxy");
        assertProblem(
                api.get("/api/v1/sandboxes/" + key + "/ports/8081", Api.TENANT_B),
                404,
                "not-found");
    }

    @Test
    void aPortNothingListensOnIsA502ProblemAndABadPortA400() {
        String key = sandbox("bridge").getString("key");
        String url = proxyUrl(key, 8099);
        JsonObject problem =
                assertProblem(
                        api.send(
                                HttpRequest.newBuilder(URI.create(url))
                                        .header("Authorization", "Bearer " + Api.TENANT_A)),
                        502,
                        "port-unreachable");
        assertThat(problem.getString("detail")).contains("8099").contains("refused");
        assertThat(problem.getInt("port")).isEqualTo(8099);
        assertProblem(
                api.get("/api/v1/sandboxes/" + key + "/ports/0/proxy/", Api.TENANT_A),
                400,
                "invalid-request");
        assertProblem(
                api.get("/api/v1/sandboxes/" + key + "/ports/70000/proxy/", Api.TENANT_A),
                400,
                "invalid-request");
    }

    @Test
    void aSandboxWithoutNetworkHasNoReachablePorts() {
        String key = sandbox("none").getString("key");
        JsonObject problem =
                assertProblem(
                        api.get("/api/v1/sandboxes/" + key + "/ports/8081", Api.TENANT_A),
                        422,
                        "unsupported-capability");
        assertThat(problem.getString("capability")).isEqualTo("ports");
        assertThat(problem.getString("detail")).contains("network");
        assertProblem(
                api.get("/api/v1/sandboxes/" + key + "/ports/8081/proxy/", Api.TENANT_A),
                422,
                "unsupported-capability");
    }

    @Test
    void anUpgradedConnectionRelaysRawBytesBothWays() throws Exception {
        String key = sandbox("bridge").getString("key");
        put(key, "upgrade-echo", UPGRADE_ECHO);
        sandboxes.exec(key, "chmod +x upgrade-echo");
        sandboxes.start(key, "nc -ll -p 8082 -e /workspace/upgrade-echo");
        try (Socket s = awaitUpgrade(key, Api.TENANT_A)) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            StringBuilder fields = new StringBuilder();
            for (String l = line(in); !l.isEmpty(); l = line(in)) {
                fields.append(l.toLowerCase()).append('\n');
            }
            assertThat(fields.toString()).contains("upgrade: websocket");
            assertThat(line(in)).isEqualTo("hello GET /chat?room=1 HTTP/1.1");
            for (String message : new String[] {"ping-1", "second message", "ping-3"}) {
                out.write((message + "\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
                assertThat(line(in)).isEqualTo(message);
            }
        }
    }

    @Test
    void eachUpgradedConnectionHoldsAStreamsSlotUntilItCloses() throws Exception {
        String key = sandbox(quotaTenant, "bridge", "").getString("key");
        put(key, "upgrade-echo", UPGRADE_ECHO, TENANT_Q);
        quotaTenant.exec(key, "chmod +x upgrade-echo");
        quotaTenant.start(key, "nc -ll -p 8082 -e /workspace/upgrade-echo");
        Socket first = awaitUpgrade(key, TENANT_Q);
        try (Socket second = awaitUpgrade(key, TENANT_Q);
                Socket third = sendUpgrade(key, TENANT_Q)) {
            String refused = line(third.getInputStream());
            assertThat(refused).startsWith("HTTP/1.1 429");
            assertThat(until(third.getInputStream(), "\"quota\":\"streams\""))
                    .contains("Retry-After");
        } finally {
            first.close();
        }
        // both closed by the client: their slots come back, so two more relays open
        try (Socket again = awaitUpgrade(key, TENANT_Q);
                Socket andAgain = awaitUpgrade(key, TENANT_Q)) {
            andAgain.getOutputStream().write("still relayed\n".getBytes(StandardCharsets.UTF_8));
            InputStream in = andAgain.getInputStream();
            for (String l = line(in); !l.isEmpty(); l = line(in)) {
                // the 101's fields
            }
            assertThat(line(in)).startsWith("hello GET /chat");
            assertThat(line(in)).isEqualTo("still relayed");
        }
    }

    @Test
    void aPortThatAcceptsButNeverAnswersIsA504ProblemWithinTheReadTimeout() {
        String key = sandbox("bridge").getString("key");
        put(key, "silent", "#!/bin/sh\nexec sleep 600\n");
        sandboxes.exec(key, "chmod +x silent");
        sandboxes.start(key, "nc -ll -p 8083 -e /workspace/silent");
        String url = proxyUrl(key, 8083);
        // pom.xml sets agentbox.ports.proxy.read-timeout-ms=3000 for the IT server
        AtomicReference<HttpResponse<String>> last = new AtomicReference<>();
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(300))
                .until(
                        () -> {
                            last.set(
                                    api.send(
                                            HttpRequest.newBuilder(URI.create(url))
                                                    .header(
                                                            "Authorization",
                                                            "Bearer " + Api.TENANT_A)));
                            return last.get().statusCode() != 502;
                        });
        JsonObject problem = assertProblem(last.get(), 504, "port-timeout");
        assertThat(problem.getString("detail")).contains("8083").contains("3000 ms");
    }

    @Test
    void aDeclaredPortKeepsItsHostUrlAndIsReachableThroughTheProxyToo() {
        JsonObject made = sandbox(sandboxes, "bridge", ",\"ports\":[8080]");
        String key = made.getString("key");
        // What it was made from is shown with it, in the ensure's answer and in the list.
        assertThat(made.getString("image")).isEqualTo(BUSYBOX);
        assertThat(made.getJsonArray("ports").toString()).isEqualTo("[8080]");
        JsonObject listed =
                Api.json(api.get("/api/v1/sandboxes", Api.TENANT_A))
                        .asJsonArray()
                        .getValuesAs(JsonObject.class)
                        .stream()
                        .filter(o -> o.getString("key").equals(key))
                        .findFirst()
                        .orElseThrow();
        assertThat(listed.getString("image")).isEqualTo(BUSYBOX);
        assertThat(listed.getJsonArray("ports").toString()).isEqualTo("[8080]");
        put(key, "www/index.html", "declared and proxied");
        sandboxes.start(key, "httpd -f -p 8080 -h /workspace/www");
        JsonObject channel =
                Api.object(api.get("/api/v1/sandboxes/" + key + "/ports/8080", Api.TENANT_A));
        assertThat(channel.getBoolean("proxied")).isFalse();
        assertThat(URI.create(channel.getString("url")).getHost()).isEqualTo("127.0.0.1");
        HttpResponse<String> proxied =
                awaitAnswer(
                        HttpRequest.newBuilder(
                                        URI.create(
                                                api.baseUrl()
                                                        + "/api/v1/sandboxes/"
                                                        + key
                                                        + "/ports/8080/proxy/index.html"))
                                .header("Authorization", "Bearer " + Api.TENANT_A));
        assertThat(proxied.statusCode()).isEqualTo(200);
        assertThat(proxied.body()).isEqualTo("declared and proxied");
    }

    /** Sends an upgrade request for port 8082 and returns the socket, nothing read yet. */
    private Socket sendUpgrade(String key, String token) throws IOException {
        URI base = URI.create(api.baseUrl());
        String head =
                "GET /api/v1/sandboxes/"
                        + key
                        + "/ports/8082/proxy/chat?room=1 HTTP/1.1\r\n"
                        + "Host: "
                        + base.getHost()
                        + ":"
                        + base.getPort()
                        + "\r\nAuthorization: Bearer "
                        + token
                        + "\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                        + "Sec-WebSocket-Version: 13\r\n\r\n";
        Socket s = new Socket(base.getHost(), base.getPort());
        s.setSoTimeout(10_000);
        s.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
        return s;
    }

    /**
     * An upgraded connection to the echo peer on 8082, its {@code 101} status line read, once the
     * peer listens.
     */
    private Socket awaitUpgrade(String key, String token) {
        AtomicReference<Socket> open = new AtomicReference<>();
        Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(300))
                .until(
                        () -> {
                            Socket s = sendUpgrade(key, token);
                            String status = line(s.getInputStream());
                            if (status.startsWith("HTTP/1.1 101")) {
                                open.set(s);
                                return true;
                            }
                            s.close();
                            return false;
                        });
        return open.get();
    }

    /** What arrives up to and including {@code needle} (the connection stays open after it). */
    private static String until(InputStream in, String needle) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        while (!b.toString(StandardCharsets.UTF_8).contains(needle)) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("connection ended before " + needle + " in: " + b);
            }
            b.write(c);
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    /** One line without its CR LF. */
    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new IOException("connection ended after: " + b);
            }
            if (c != '\r') {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.UTF_8);
    }
}
