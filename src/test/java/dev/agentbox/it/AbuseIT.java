package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import jakarta.json.JsonObject;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * One tenant (B) abuses the server through the public API — reads {@code /dev/zero}, runs {@code
 * yes}, opens event streams until its quota stops it — and the server stays whole: every abusive
 * request gets a bounded answer, the server is live afterwards with its heap back under a bound,
 * nothing the requests started still runs in B's sandbox, and the other tenant (A) keeps getting
 * its exec answered within a bound the whole time.
 *
 * <p>The steps are ordered test methods so that each attack is reported by name; the later checks
 * (liveness, heap, processes, A's latency) hold whatever the earlier answers were.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AbuseIT {

    /** Used heap the idle server must settle below after the abuse (its -Xmx is 384 MiB). */
    static final long HEAP_BOUND_BYTES = 256L * 1024 * 1024;

    /** The longest tenant A's {@code echo ok} may take while B abuses the server. */
    static final Duration TENANT_A_EXEC_BOUND = Duration.ofSeconds(10);

    /**
     * At most this many streams are opened looking for the quota (the default is not fixed by the
     * contract).
     */
    static final int MAX_STREAMS_TRIED = 64;

    /** Opening streams up to the quota (and the refusal) must fit in this time. */
    static final Duration STREAMS_STEP_BOUND = Duration.ofSeconds(120);

    /** Each stream's response head (200 or 429) must arrive within this time. */
    static final Duration STREAM_OPEN_BOUND = Duration.ofSeconds(15);

    /**
     * Tenant B: a tenant of its own with a small stream quota (pom.xml), the others as every IT
     * tenant's.
     */
    static final String TENANT_B = "token-abuse";

    private static final Api API = Api.itServer();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static Sandboxes sandboxesA;
    private static Sandboxes sandboxesB;
    private static String keyA;
    private static String keyB;
    private static TenantAPinger pinger;
    private static final List<String> containers = new ArrayList<>();

    @BeforeAll
    static void twoTenantsWithASandboxEach() {
        sandboxesA = new Sandboxes(API, Api.TENANT_A);
        sandboxesB = new Sandboxes(API, TENANT_B);
        JsonObject a = sandboxesA.ensure(busybox("abuse-a"));
        JsonObject b = sandboxesB.ensure(busybox("abuse-b"));
        keyA = a.getString("key");
        keyB = b.getString("key");
        containers.add(a.getString("providerSandboxId"));
        containers.add(b.getString("providerSandboxId"));
        pinger = new TenantAPinger();
        pinger.start();
    }

    @AfterAll
    static void cleanUp() throws InterruptedException {
        if (pinger != null) {
            pinger.stop();
        }
        if (sandboxesB != null) {
            sandboxesB.close();
        }
        if (sandboxesA != null) {
            sandboxesA.close();
        }
        // A server the abuse starved may not have destroyed them: never leave the containers
        // behind.
        for (String id : containers) {
            DockerCli.run("rm", "-f", id);
        }
    }

    @Test
    @Order(1)
    void readingDevZeroThroughTheFilesApiIsRefusedAsFileTooLarge() {
        HttpResponse<InputStream> r =
                sendStreaming(
                        API.request("/api/v1/sandboxes/" + keyB + "/files?path=/dev/zero", TENANT_B)
                                .timeout(Duration.ofSeconds(60))
                                .GET(),
                        "GET files?path=/dev/zero");
        assertProblem(asString(r, 1 << 20), 413, "file-too-large");
    }

    @Test
    @Order(2)
    void execOfYesIsCutAtTheOutputCapAndSaysTruncated() {
        long t0 = System.nanoTime();
        HttpResponse<InputStream> r =
                sendStreaming(
                        API.request("/api/v1/sandboxes/" + keyB + "/exec", TENANT_B)
                                .timeout(Duration.ofSeconds(90))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString("{\"command\":\"yes\"}")),
                        "exec yes");
        // Bounded read: a server without a cap would stream until the client gives up.
        HttpResponse<String> body = asString(r, 256 << 20);
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
        assertThat(body.statusCode()).as("exec yes: %s", abbreviate(body.body())).isEqualTo(200);
        // The answer holds up to the cap of output (16 MiB, more once JSON-escaped): past what a
        // JSON-P reader takes in one document, so the flag is looked for in the text.
        assertThat(body.body()).as("exec yes answer").contains("\"truncated\":true");
        assertThat(seconds).as("seconds until exec yes answered").isLessThanOrEqualTo(60);
    }

    @Test
    @Order(3)
    void streamsBeyondTheTenantsQuotaAreRefusedWithTheLimitWhileTheOtherTenantStillStreams()
            throws Exception {
        List<HttpResponse<InputStream>> open = new ArrayList<>();
        try {
            HttpResponse<String> refused = null;
            long deadline = System.nanoTime() + STREAMS_STEP_BOUND.toNanos();
            for (int i = 0; i < MAX_STREAMS_TRIED && refused == null; i++) {
                if (System.nanoTime() > deadline) {
                    fail(
                            "tenant B had opened "
                                    + open.size()
                                    + " event streams after "
                                    + STREAMS_STEP_BOUND.toSeconds()
                                    + " s, none refused: opening streams is not bounded by a quota");
                }
                HttpResponse<InputStream> r;
                try {
                    r = openFileEvents(keyB, TENANT_B);
                } catch (AssertionError e) {
                    throw new AssertionError(
                            "stream " + (open.size() + 1) + " of tenant B: " + e.getMessage(), e);
                }
                if (r.statusCode() == 200) {
                    open.add(r);
                } else {
                    refused = asString(r, 1 << 20);
                }
            }
            if (refused == null) {
                fail(
                        "tenant B opened "
                                + open.size()
                                + " event streams and none was refused with 429 quota-exceeded");
            }
            JsonObject problem = assertProblem(refused, 429, "quota-exceeded");
            assertThat(problem.getInt("limit"))
                    .as("limit in the 429 body")
                    .isPositive()
                    .isEqualTo(open.size());

            HttpResponse<InputStream> other = openFileEvents(keyA, Api.TENANT_A);
            try {
                assertThat(other.statusCode())
                        .as("tenant A's stream while B is at its quota")
                        .isEqualTo(200);
            } finally {
                other.body().close();
            }
        } finally {
            for (HttpResponse<InputStream> r : open) {
                r.body().close();
            }
        }
    }

    @Test
    @Order(4)
    void afterTheAbuseTheServerIsLiveAndItsHeapSettlesBelowTheBound() throws Exception {
        assertThat(API.send(API.request("/health/live").GET()).statusCode())
                .as("/health/live")
                .isEqualTo(200);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(45);
        long used;
        do {
            used = usedHeapBytes();
            if (used < HEAP_BOUND_BYTES) {
                return;
            }
            Thread.sleep(1000);
        } while (System.nanoTime() < deadline);
        fail(
                "used heap still "
                        + (used >> 20)
                        + " MiB after 45 s (bound "
                        + (HEAP_BOUND_BYTES >> 20)
                        + " MiB)");
    }

    @Test
    @Order(5)
    void nothingTheAbusiveRequestsStartedStillRunsInTheSandbox() throws Exception {
        // The command below names none of the patterns, so it never matches itself.
        Pattern leftover = Pattern.compile("cat /dev/zero|/dev/zero|\\byes\\b|\\bhead\\b");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        List<String> found;
        do {
            String ps = sandboxesB.stdout(keyB, "ps -o pid,args 2>/dev/null || ps");
            found = ps.lines().filter(l -> leftover.matcher(l).find()).toList();
            if (found.isEmpty()) {
                return;
            }
            Thread.sleep(1000);
        } while (System.nanoTime() < deadline);
        fail("still running in tenant B's sandbox 20 s after the requests ended: " + found);
    }

    @Test
    @Order(6)
    void theOtherTenantsExecWasAnsweredWithinTheBoundThroughout() throws InterruptedException {
        pinger.stop();
        assertThat(pinger.samples).as("tenant A exec samples").isNotEmpty();
        assertThat(pinger.failures).as("tenant A exec failures").isEmpty();
        long max = pinger.samples.stream().mapToLong(Long::longValue).max().orElse(0);
        assertThat(Duration.ofNanos(max))
                .as("slowest of %d tenant A execs", pinger.samples.size())
                .isLessThanOrEqualTo(TENANT_A_EXEC_BOUND);
    }

    /** Tenant A's {@code echo ok}, back to back on its own thread, for the whole class. */
    static final class TenantAPinger {
        final ConcurrentLinkedQueue<Long> samples = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        private volatile boolean stopped;
        private Thread thread;

        void start() {
            thread =
                    new Thread(
                            () -> {
                                while (!stopped) {
                                    long t0 = System.nanoTime();
                                    try {
                                        HttpResponse<String> r =
                                                API.send(
                                                        API.request(
                                                                        "/api/v1/sandboxes/"
                                                                                + keyA
                                                                                + "/exec",
                                                                        Api.TENANT_A)
                                                                .timeout(
                                                                        TENANT_A_EXEC_BOUND
                                                                                .multipliedBy(3))
                                                                .header(
                                                                        "Content-Type",
                                                                        "application/json")
                                                                .POST(
                                                                        HttpRequest.BodyPublishers
                                                                                .ofString(
                                                                                        "{\"command\":\"echo ok\"}")));
                                        if (r.statusCode() != 200 || !r.body().contains("ok")) {
                                            failures.add(
                                                    r.statusCode() + " " + abbreviate(r.body()));
                                        }
                                    } catch (RuntimeException e) {
                                        failures.add(e.toString());
                                    }
                                    samples.add(System.nanoTime() - t0);
                                    sleepQuietly(250);
                                }
                            },
                            "tenant-a-pinger");
            thread.setDaemon(true);
            thread.start();
        }

        void stop() throws InterruptedException {
            stopped = true;
            if (thread != null) {
                thread.join(TENANT_A_EXEC_BOUND.multipliedBy(4).toMillis());
            }
        }
    }

    /**
     * Used heap of the server from /metrics (MicroProfile Metrics 5: {@code
     * memory_usedHeap_bytes}).
     */
    static long usedHeapBytes() {
        String metrics = API.send(API.request("/metrics?scope=base").GET()).body();
        Matcher m =
                Pattern.compile("(?m)^memory_usedHeap_bytes(?:\\{[^}]*})?\\s+([0-9.eE+]+)")
                        .matcher(metrics);
        if (m.find()) {
            return (long) Double.parseDouble(m.group(1));
        }
        throw new AssertionError(
                "no memory_usedHeap_bytes in /metrics?scope=base: " + abbreviate(metrics));
    }

    private static HttpResponse<InputStream> openFileEvents(String key, String token) {
        return sendStreaming(
                API.request("/api/v1/sandboxes/" + key + "/file-events", token)
                        .timeout(STREAM_OPEN_BOUND)
                        .header("Accept", "text/event-stream")
                        .GET(),
                "file-events");
    }

    private static HttpResponse<InputStream> sendStreaming(
            HttpRequest.Builder request, String what) {
        try {
            CompletableFuture<HttpResponse<InputStream>> f =
                    HTTP.sendAsync(request.build(), HttpResponse.BodyHandlers.ofInputStream());
            return f.get(120, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError(what + ": no answer within 120 s");
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof HttpTimeoutException) {
                throw new AssertionError(
                        what + ": no answer within the request timeout", e.getCause());
            }
            throw new AssertionError(what + ": " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * The body as a string, reading at most {@code max} bytes (more fails: the answer was not
     * bounded).
     */
    private static HttpResponse<String> asString(HttpResponse<InputStream> r, int max) {
        try (InputStream in = r.body()) {
            byte[] bytes = in.readNBytes(max + 1);
            if (bytes.length > max) {
                throw new AssertionError(
                        "response body over " + max + " bytes (status " + r.statusCode() + ")");
            }
            String text = new String(bytes, StandardCharsets.UTF_8);
            return new StringResponse(r, text);
        } catch (java.io.IOException e) {
            throw new AssertionError("reading the response: " + e, e);
        }
    }

    private static String busybox(String prefix) {
        return "{\"definitionId\":\""
                + prefix
                + "-"
                + UUID.randomUUID()
                + "\",\"image\":\"agentbox/sandbox:busybox\"}";
    }

    private static String abbreviate(String s) {
        return RawHttp.abbreviate(s);
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** An {@link HttpResponse} of the text read from a streaming one. */
    private record StringResponse(HttpResponse<InputStream> raw, String body)
            implements HttpResponse<String> {
        public int statusCode() {
            return raw.statusCode();
        }

        public HttpRequest request() {
            return raw.request();
        }

        public java.util.Optional<HttpResponse<String>> previousResponse() {
            return java.util.Optional.empty();
        }

        public java.net.http.HttpHeaders headers() {
            return raw.headers();
        }

        public java.util.Optional<javax.net.ssl.SSLSession> sslSession() {
            return raw.sslSession();
        }

        public java.net.URI uri() {
            return raw.uri();
        }

        public HttpClient.Version version() {
            return raw.version();
        }
    }
}
