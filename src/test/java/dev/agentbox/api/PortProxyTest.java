package dev.agentbox.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.quota.Slot;
import jakarta.servlet.http.HttpServletRequest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The port proxy against a real HTTP server on loopback (standing in for a sandbox's port), driven
 * through servlet fakes: what crosses, how bodies stream both ways, and how failures answer.
 */
class PortProxyTest {

    private static final String PREFIX = "/api/v1/sandboxes/k/ports/1/proxy";

    private HttpServer sandbox;
    private PortProxy proxy;
    private final Set<Integer> connections = ConcurrentHashMap.newKeySet();

    @BeforeEach
    void start() throws IOException {
        sandbox = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        sandbox.setExecutor(Executors.newCachedThreadPool());
        sandbox.start();
        proxy = new PortProxy(new PortProxy.Settings(2000, 10_000, 1024 * 1024));
    }

    @AfterEach
    void stop() {
        proxy.close();
        sandbox.stop(0);
    }

    private void serve(String path, Handler h) {
        sandbox.createContext(
                path,
                ex -> {
                    connections.add(ex.getRemoteAddress().getPort());
                    try {
                        h.handle(ex);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } finally {
                        ex.close();
                    }
                });
    }

    interface Handler {
        void handle(HttpExchange ex) throws IOException, InterruptedException;
    }

    private PortProxy.Target target(String pathAndQuery) {
        return target(sandbox.getAddress().getPort(), pathAndQuery);
    }

    private static PortProxy.Target target(int port, String pathAndQuery) {
        return new PortProxy.Target(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
                port,
                "k",
                pathAndQuery,
                PREFIX);
    }

    private static HttpServletRequest get(String method, Map<String, List<String>> fields) {
        return ServletFakes.request(method, fields, InputStream.nullInputStream(), -1);
    }

    private ServletFakes.Response forward(HttpServletRequest req, PortProxy.Target t)
            throws Exception {
        ServletFakes.Response resp = new ServletFakes.Response();
        proxy.forward(req, resp.servlet(), t, Slot.NONE);
        return resp;
    }

    private static void answer(HttpExchange ex, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        ex.getResponseBody().write(bytes);
    }

    @Test
    void theCallersFieldsCrossExceptCredentialsAndHopByHopOnesAndTheProxySetsItsOwn()
            throws Exception {
        serve(
                "/echo",
                ex -> {
                    StringBuilder seen = new StringBuilder();
                    new TreeMap<>(ex.getRequestHeaders())
                            .forEach((k, v) -> seen.append(k).append('=').append(v).append('\n'));
                    seen.append("uri=").append(ex.getRequestURI().toString());
                    ex.getResponseHeaders().add("X-From-Sandbox", "yes");
                    ex.getResponseHeaders().add("Set-Cookie", "s=1");
                    ex.getResponseHeaders().add("Clear-Site-Data", "*");
                    ex.getResponseHeaders().add("Connection", "X-Hop");
                    ex.getResponseHeaders().add("X-Hop", "no");
                    answer(ex, 200, seen.toString());
                });
        Map<String, List<String>> fields = new TreeMap<>();
        fields.put("Authorization", List.of("Bearer secret-token"));
        fields.put("Cookie", List.of("agentbox=1"));
        fields.put("X-Test", List.of("a", "b"));
        fields.put("Connection", List.of("X-Private"));
        fields.put("X-Private", List.of("hidden"));
        fields.put("X-Forwarded-For", List.of("203.0.113.9"));
        fields.put("Host", List.of("agentbox.example"));
        fields.put("Accept-Encoding", List.of("identity"));

        ServletFakes.Response r = forward(get("GET", fields), target("/echo?q=1&r=%2F"));

        assertThat(r.status).isEqualTo(200);
        String seen = r.body();
        assertThat(seen)
                .contains("X-test=[a, b]")
                .contains("Host=[localhost:" + sandbox.getAddress().getPort() + "]")
                .contains("X-forwarded-for=[192.0.2.7]")
                .contains("X-forwarded-proto=[https]")
                .contains("X-forwarded-host=[agentbox.example]")
                .contains("X-forwarded-prefix=[" + PREFIX + "]")
                .contains("Accept-encoding=[identity]")
                .contains("uri=/echo?q=1&r=%2F")
                .doesNotContain("secret-token")
                .doesNotContain("Cookie")
                .doesNotContain("hidden")
                .doesNotContain("203.0.113.9")
                .doesNotContain("User-agent")
                .doesNotContain("Upgrade");
        assertThat(r.all("X-From-Sandbox")).containsExactly("yes");
        assertThat(r.all("Set-Cookie")).isEmpty();
        assertThat(r.all("Clear-Site-Data")).isEmpty();
        assertThat(r.all("X-Hop")).isEmpty();
        assertThat(r.all("Content-Security-Policy")).containsExactly(ProxyHeaders.SANDBOX_POLICY);
        assertThat(r.contentLength).isEqualTo(seen.length());
    }

    @Test
    void aStreamedResponseReachesTheCallerBeforeTheSandboxFinishesIt() throws Exception {
        CountDownLatch finish = new CountDownLatch(1);
        serve(
                "/events",
                ex -> {
                    ex.getResponseHeaders().add("Content-Type", "text/event-stream");
                    ex.sendResponseHeaders(200, 0); // chunked
                    OutputStream out = ex.getResponseBody();
                    out.write("data: first\n\n".getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    finish.await(20, TimeUnit.SECONDS);
                    out.write("data: last\n\n".getBytes(StandardCharsets.UTF_8));
                });
        ServletFakes.Response r = new ServletFakes.Response();
        Future<?> forwarding =
                Executors.newSingleThreadExecutor()
                        .submit(
                                () -> {
                                    proxy.forward(
                                            get("GET", Map.of()),
                                            r.servlet(),
                                            target("/events"),
                                            Slot.NONE);
                                    return null;
                                });
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> r.flushed().equals("data: first\n\n"));
        assertThat(forwarding).isNotDone();
        assertThat(r.all("Content-Type")).containsExactly("text/event-stream");
        assertThat(r.contentLength).isEqualTo(-1);

        finish.countDown();
        forwarding.get(10, TimeUnit.SECONDS);
        assertThat(r.flushed()).isEqualTo("data: first\n\ndata: last\n\n");
    }

    @Test
    void aStreamWithoutLengthOrChunksEndingAtCloseIsRelayedAsItComesToo() throws Exception {
        CountDownLatch finish = new CountDownLatch(1);
        try (ServerSocket port = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Executors.newSingleThreadExecutor()
                    .submit(
                            () -> {
                                try (Socket s = port.accept()) {
                                    s.getInputStream().read(new byte[4096]);
                                    OutputStream out = s.getOutputStream();
                                    out.write(
                                            ("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream"
                                                            + "\r\n\r\ndata: first\n\n")
                                                    .getBytes(StandardCharsets.US_ASCII));
                                    out.flush();
                                    finish.await(20, TimeUnit.SECONDS);
                                    out.write("data: last\n\n".getBytes(StandardCharsets.US_ASCII));
                                }
                                return null;
                            });
            ServletFakes.Response r = new ServletFakes.Response();
            Future<?> forwarding =
                    Executors.newSingleThreadExecutor()
                            .submit(
                                    () -> {
                                        proxy.forward(
                                                get("GET", Map.of()),
                                                r.servlet(),
                                                target(port.getLocalPort(), "/"),
                                                Slot.NONE);
                                        return null;
                                    });
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> r.flushed().equals("data: first\n\n"));
            assertThat(forwarding).isNotDone();
            finish.countDown();
            forwarding.get(10, TimeUnit.SECONDS);
            assertThat(r.flushed()).isEqualTo("data: first\n\ndata: last\n\n");
        }
    }

    @Test
    void aChunkedRequestBodyStreamsToTheSandboxBeforeTheCallerHasSentItAll() throws Exception {
        CountDownLatch sandboxReading = new CountDownLatch(1);
        long total = 8L * 1024 * 1024;
        serve(
                "/upload",
                ex -> {
                    InputStream in = ex.getRequestBody();
                    long n = in.read(new byte[1024]);
                    sandboxReading.countDown();
                    n += in.transferTo(OutputStream.nullOutputStream());
                    answer(ex, 200, "got " + n);
                });
        // Hands over its first MiB, then waits until the sandbox has bytes: a proxy that held the
        // body whole before sending would never get past it.
        InputStream body =
                new InputStream() {
                    private long sent;

                    @Override
                    public int read() {
                        throw new UnsupportedOperationException();
                    }

                    @Override
                    public int read(byte[] b, int off, int len) throws IOException {
                        if (sent == total) {
                            return -1;
                        }
                        if (sent >= 1024 * 1024) {
                            try {
                                if (!sandboxReading.await(10, TimeUnit.SECONDS)) {
                                    throw new IOException("the body was not streamed");
                                }
                            } catch (InterruptedException e) {
                                throw new IOException(e);
                            }
                        }
                        int n = (int) Math.min(len, total - sent);
                        sent += n;
                        return n;
                    }
                };
        proxy.close();
        proxy = new PortProxy(new PortProxy.Settings(2000, 10_000, total));
        ServletFakes.Response r =
                forward(
                        ServletFakes.request(
                                "PUT", Map.of("Transfer-Encoding", List.of("chunked")), body, -1),
                        target("/upload"));
        assertThat(r.status).isEqualTo(200);
        assertThat(r.body()).isEqualTo("got " + total);
    }

    @Test
    void aBodyOverTheLimitIsA413WhetherDeclaredOrCountedOnTheWay() {
        AtomicLong calls = new AtomicLong();
        serve(
                "/upload",
                ex -> {
                    calls.incrementAndGet();
                    ex.getRequestBody().transferTo(OutputStream.nullOutputStream());
                    answer(ex, 200, "stored");
                });
        byte[] tooMuch = new byte[1024 * 1024 + 1];
        assertThatThrownBy(
                        () ->
                                forward(
                                        ServletFakes.request(
                                                "POST",
                                                Map.of(),
                                                new ByteArrayInputStream(tooMuch),
                                                tooMuch.length),
                                        target("/upload")))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        p -> assertThat(p.code()).isEqualTo(ProblemCode.PAYLOAD_TOO_LARGE));
        assertThat(calls).hasValue(0);
        assertThatThrownBy(
                        () ->
                                forward(
                                        ServletFakes.request(
                                                "POST",
                                                Map.of("Transfer-Encoding", List.of("chunked")),
                                                new ByteArrayInputStream(tooMuch),
                                                -1),
                                        target("/upload")))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        p -> assertThat(p.detail()).contains("agentbox.http.max-body-bytes"));
    }

    @Test
    void aRedirectIsTheCallersToFollowAndAHeadAnswerKeepsItsLengthWithoutABody() throws Exception {
        serve(
                "/moved",
                ex -> {
                    ex.getResponseHeaders().add("Location", "/elsewhere");
                    answer(ex, 302, "");
                });
        ServletFakes.Response moved = forward(get("GET", Map.of()), target("/moved"));
        assertThat(moved.status).isEqualTo(302);
        assertThat(moved.all("Location")).containsExactly("/elsewhere");

        serve(
                "/page",
                ex -> {
                    ex.getResponseHeaders().add("Content-Length", "11");
                    ex.sendResponseHeaders(200, -1);
                });
        ServletFakes.Response head = forward(get("HEAD", Map.of()), target("/page"));
        assertThat(head.status).isEqualTo(200);
        assertThat(head.contentLength).isEqualTo(11);
        assertThat(head.body()).isEmpty();
    }

    @Test
    void aConnectionToAPortIsReusedOnceItsResponseWasReadToTheEnd() throws Exception {
        serve("/n", ex -> answer(ex, 200, "ok"));
        for (int i = 0; i < 3; i++) {
            assertThat(forward(get("GET", Map.of()), target("/n")).body()).isEqualTo("ok");
        }
        assertThat(connections).hasSize(1);
    }

    @Test
    @Timeout(30) // without the abort, closing the response would read the endless stream forever
    void aCallerGoingAwayMidStreamEndsTheExchangeAtOnceAndItsConnectionIsNotReused()
            throws Exception {
        CountDownLatch cut = new CountDownLatch(1);
        serve(
                "/endless",
                ex -> {
                    ex.sendResponseHeaders(200, 0);
                    OutputStream out = ex.getResponseBody();
                    try {
                        while (true) {
                            out.write("data: tick\n\n".getBytes(StandardCharsets.UTF_8));
                            out.flush();
                            Thread.sleep(20);
                        }
                    } catch (IOException closedByTheProxy) {
                        cut.countDown();
                    }
                });
        serve("/n", ex -> answer(ex, 200, "ok"));
        ServletFakes.Response r = new ServletFakes.Response();
        r.failAfter = 100;
        long started = System.nanoTime();
        assertThatThrownBy(
                        () ->
                                proxy.forward(
                                        get("GET", Map.of()),
                                        r.servlet(),
                                        target("/endless"),
                                        Slot.NONE))
                .isInstanceOf(IOException.class);
        // well inside the 10 s read timeout: the rest of the stream was not waited for
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
        assertThat(cut.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(forward(get("GET", Map.of()), target("/n")).body()).isEqualTo("ok");
        assertThat(connections).hasSize(2);
    }

    @Test
    void aPortNothingListensOnIsA502AndOneThatNeverAnswersA504() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        assertThatThrownBy(() -> forward(get("GET", Map.of()), target(closed, "/")))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        p -> {
                            assertThat(p.code()).isEqualTo(ProblemCode.PORT_UNREACHABLE);
                            assertThat(p.detail()).contains("refused");
                            assertThat(p.extensions()).containsEntry("port", closed);
                        });

        proxy.close();
        proxy = new PortProxy(new PortProxy.Settings(2000, 500, 1024));
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Future<Socket> accepted = Executors.newSingleThreadExecutor().submit(silent::accept);
            assertThatThrownBy(
                            () -> forward(get("GET", Map.of()), target(silent.getLocalPort(), "/")))
                    .isInstanceOfSatisfying(
                            ProblemException.class,
                            p -> {
                                assertThat(p.code()).isEqualTo(ProblemCode.PORT_TIMEOUT);
                                assertThat(p.detail()).contains("500 ms");
                            });
            accepted.get(5, TimeUnit.SECONDS).close();
        }
    }

    @Test
    void whatIsNotAnHttpResponseIsA502() throws Exception {
        try (ServerSocket ssh = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Executors.newSingleThreadExecutor()
                    .submit(
                            () -> {
                                try (Socket s = ssh.accept()) {
                                    s.getOutputStream()
                                            .write(
                                                    "SSH-2.0-OpenSSH\r\n\r\n"
                                                            .getBytes(StandardCharsets.US_ASCII));
                                    s.getInputStream().read(new byte[1024]);
                                }
                                return null;
                            });
            assertThatThrownBy(() -> forward(get("GET", Map.of()), target(ssh.getLocalPort(), "/")))
                    .isInstanceOfSatisfying(
                            ProblemException.class,
                            p -> assertThat(p.code()).isEqualTo(ProblemCode.PORT_UNREACHABLE));
        }
    }
}
