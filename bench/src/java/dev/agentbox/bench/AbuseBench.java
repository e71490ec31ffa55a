package dev.agentbox.bench;

import dev.agentbox.it.Api;
import dev.agentbox.it.DockerCli;
import jakarta.json.JsonObject;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A normal tenant's exec latency while another tenant abuses the server, against the same tenant's
 * latency on the idle server in the same run (bench/abuse starts the server).
 *
 * <ul>
 *   <li>Tenant A: {@code echo ok} through {@code POST /exec}, N times back to back, first on the
 *       idle server, then while tenant B runs the abuse mix.
 *   <li>Tenant B's mix, each on its own thread until the measurement ends: reads of {@code
 *       /dev/zero} through the files API, {@code exec yes}, event streams opened up to its quota
 *       (or 64) and held, and a CPU-burning exec with a 30 s timeout.
 *   <li>The server JVM's VmRSS is sampled every 200 ms during both phases.
 * </ul>
 *
 * Targets (issue 12): mix p95 at most 2× idle p95; peak RSS during the mix under 768 MiB.
 */
public final class AbuseBench {

    static final String TOKEN_A = "token-a";
    static final String TOKEN_B = "token-b";
    static final int MAX_STREAMS = 64;
    static final Duration PHASE_BUDGET = Duration.ofMinutes(5);
    static final Duration EXEC_TIMEOUT = Duration.ofSeconds(30);

    public static void main(String[] args) throws Exception {
        Api api = new Api(args.length > 0 ? args[0] : "http://localhost:19390");
        long serverPid = args.length > 1 ? Long.parseLong(args[1]) : 0;
        int n = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        JsonObject sandboxA = ensure(api, TOKEN_A, "bench-abuse-a");
        JsonObject sandboxB = ensure(api, TOKEN_B, "bench-abuse-b");
        String keyA = sandboxA.getString("key");
        String keyB = sandboxB.getString("key");
        RssSampler rss = new RssSampler(serverPid);
        try {
            for (int i = 0; i < 20; i++) {
                execA(api, keyA);
            }
            rss.start();
            Phase idle = measure(api, keyA, n);
            long idlePeak = rss.takePeak();

            Mix mix = new Mix(api, keyB);
            mix.start();
            Thread.sleep(3000); // let every abuser reach the server before measuring
            Phase abused = measure(api, keyA, n);
            long mixPeak = rss.takePeak();
            mix.stop();
            rss.stop();

            StringBuilder out = new StringBuilder();
            out.append(
                    String.format(
                            Locale.ROOT,
                            "%n| tenant A `echo ok` exec (up to %d per phase, %d min budget, %d s timeout) | n | p50 ms | p95 ms | max ms | failed |%n",
                            n,
                            PHASE_BUDGET.toMinutes(),
                            EXEC_TIMEOUT.toSeconds()));
            out.append("|---|---:|---:|---:|---:|---:|\n");
            out.append(idle.row("idle server"));
            out.append(abused.row("while tenant B runs the abuse mix"));
            double ratio = (double) abused.p(95) / Math.max(1, idle.p(95));
            out.append(String.format(Locale.ROOT, "%np95 mix/idle = %.2f (target <= 2)%n", ratio));
            out.append(
                    String.format(
                            Locale.ROOT,
                            "server RSS: peak %.0f MiB during the mix (target < 768), %.0f MiB idle%n",
                            mixPeak / 1024.0,
                            idlePeak / 1024.0));
            out.append(mix.summary());
            System.out.println(out);
        } finally {
            rss.stop();
            delete(api, TOKEN_B, sandboxB);
            delete(api, TOKEN_A, sandboxA);
        }
    }

    /** Latencies (ns) of N sequential execs; a failed exec counts with the time it took. */
    record Phase(long[] nanos, int failed) {
        long p(int pct) {
            if (nanos.length == 0) {
                return -1;
            }
            long[] s = nanos.clone();
            Arrays.sort(s);
            return s[Math.min(s.length - 1, (int) Math.ceil(pct / 100.0 * s.length) - 1)]
                    / 1_000_000;
        }

        String row(String name) {
            long max = Arrays.stream(nanos).max().orElse(0) / 1_000_000;
            return String.format(
                    Locale.ROOT,
                    "| %s | %d | %d | %d | %d | %d |%n",
                    name,
                    nanos.length,
                    p(50),
                    p(95),
                    max,
                    failed);
        }
    }

    /**
     * N sequential execs, or as many as fit in {@link #PHASE_BUDGET} (a starved server must not
     * stall the bench for hours).
     */
    private static Phase measure(Api api, String keyA, int n) {
        long[] t = new long[n];
        int failed = 0;
        int done = 0;
        long deadline = System.nanoTime() + PHASE_BUDGET.toNanos();
        while (done < n && System.nanoTime() < deadline) {
            long t0 = System.nanoTime();
            if (!execA(api, keyA)) {
                failed++;
            }
            t[done++] = System.nanoTime() - t0;
        }
        return new Phase(Arrays.copyOf(t, done), failed);
    }

    private static boolean execA(Api api, String keyA) {
        try {
            HttpResponse<String> r =
                    api.send(
                            api.request("/api/v1/sandboxes/" + keyA + "/exec", TOKEN_A)
                                    .timeout(EXEC_TIMEOUT)
                                    .header("Content-Type", "application/json")
                                    .POST(
                                            HttpRequest.BodyPublishers.ofString(
                                                    "{\"command\":\"echo ok\"}")));
            return r.statusCode() == 200 && r.body().contains("ok");
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * Tenant B's abusers; each loops until {@link #stop()}; every request has a client-side bound.
     */
    static final class Mix {
        private final Api api;
        private final String key;
        private final HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        private final AtomicBoolean stopped = new AtomicBoolean();
        private final List<Thread> threads = new ArrayList<>();
        private final ConcurrentLinkedQueue<InputStream> streams = new ConcurrentLinkedQueue<>();
        private final AtomicInteger devZero = new AtomicInteger();
        private final AtomicInteger yes = new AtomicInteger();
        private final AtomicInteger burns = new AtomicInteger();
        private final AtomicInteger streamRefusal = new AtomicInteger();
        private final ConcurrentLinkedQueue<String> statuses = new ConcurrentLinkedQueue<>();

        Mix(Api api, String key) {
            this.api = api;
            this.key = key;
        }

        /**
         * Starts the parts named in {@code ABUSE_MIX} (comma list of {@code dev-zero, yes, cpu,
         * streams}; unset = all), so each part's share of the slowdown can be measured alone.
         */
        void start() {
            java.util.Set<String> parts =
                    java.util.Set.of(
                            System.getenv()
                                    .getOrDefault("ABUSE_MIX", "dev-zero,yes,cpu,streams")
                                    .split(","));
            if (parts.contains("dev-zero")) {
                startDevZero();
            }
            if (parts.contains("yes")) {
                startYes();
            }
            if (parts.contains("cpu")) {
                startCpu();
            }
            if (parts.contains("streams")) {
                Thread opener = new Thread(this::openStreams, "abuse-streams");
                opener.setDaemon(true);
                threads.add(opener);
                opener.start();
            }
        }

        private void startDevZero() {
            loop(
                    "abuse-dev-zero",
                    () -> {
                        drain(
                                api.request(
                                                "/api/v1/sandboxes/"
                                                        + key
                                                        + "/files?path=/dev/zero",
                                                TOKEN_B)
                                        .timeout(Duration.ofSeconds(30))
                                        .GET(),
                                "dev-zero");
                        devZero.incrementAndGet();
                    });
        }

        private void startYes() {
            loop(
                    "abuse-yes",
                    () -> {
                        drain(
                                api.request("/api/v1/sandboxes/" + key + "/exec", TOKEN_B)
                                        .timeout(Duration.ofSeconds(30))
                                        .header("Content-Type", "application/json")
                                        .POST(
                                                HttpRequest.BodyPublishers.ofString(
                                                        "{\"command\":\"yes\"}")),
                                "yes");
                        yes.incrementAndGet();
                    });
        }

        private void startCpu() {
            loop(
                    "abuse-cpu",
                    () -> {
                        drain(
                                api.request("/api/v1/sandboxes/" + key + "/exec", TOKEN_B)
                                        .timeout(Duration.ofSeconds(60))
                                        .header("Content-Type", "application/json")
                                        .POST(
                                                HttpRequest.BodyPublishers.ofString(
                                                        "{\"command\":\"while :; do :; done\",\"timeoutMs\":30000}")),
                                "cpu");
                        burns.incrementAndGet();
                    });
        }

        private void openStreams() {
            while (!stopped.get() && streams.size() < MAX_STREAMS) {
                try {
                    HttpResponse<InputStream> r =
                            http.sendAsync(
                                            api.request(
                                                            "/api/v1/sandboxes/"
                                                                    + key
                                                                    + "/file-events",
                                                            TOKEN_B)
                                                    .header("Accept", "text/event-stream")
                                                    .GET()
                                                    .build(),
                                            HttpResponse.BodyHandlers.ofInputStream())
                                    .get(30, TimeUnit.SECONDS);
                    if (r.statusCode() == 200) {
                        streams.add(r.body());
                    } else {
                        r.body().close();
                        statuses.add("streams:" + r.statusCode());
                        streamRefusal.incrementAndGet();
                        return; // at the quota: hold what is open
                    }
                } catch (Exception e) {
                    statuses.add("streams:" + e.getClass().getSimpleName());
                    return;
                }
            }
        }

        private void loop(String name, Runnable body) {
            Thread t =
                    new Thread(
                            () -> {
                                while (!stopped.get()) {
                                    try {
                                        body.run();
                                    } catch (RuntimeException e) {
                                        statuses.add(name + ":" + e.getClass().getSimpleName());
                                        sleep(500);
                                    }
                                }
                            },
                            name);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }

        /**
         * Sends and reads at most 64 MiB of the answer, then hangs up (as a client that gave up
         * would).
         */
        private void drain(HttpRequest.Builder request, String what) {
            try {
                HttpResponse<InputStream> r =
                        http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofInputStream())
                                .get(90, TimeUnit.SECONDS);
                try (InputStream in = r.body()) {
                    in.readNBytes(64 << 20);
                }
                statuses.add(what + ":" + r.statusCode());
            } catch (Exception e) {
                statuses.add(what + ":" + e.getClass().getSimpleName());
                sleep(500);
            }
        }

        void stop() throws InterruptedException {
            stopped.set(true);
            for (InputStream s : streams) {
                try {
                    s.close();
                } catch (Exception ignored) {
                    // already closed
                }
            }
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(100));
            }
        }

        String summary() {
            java.util.Map<String, Long> counts = new java.util.TreeMap<>();
            statuses.forEach(s -> counts.merge(s, 1L, Long::sum));
            return String.format(
                    Locale.ROOT,
                    "mix: %d /dev/zero reads, %d exec yes, %d CPU burns, %d streams held (refused at quota: %s); answers %s%n",
                    devZero.get(),
                    yes.get(),
                    burns.get(),
                    streams.size(),
                    streamRefusal.get() > 0 ? "yes" : "no",
                    counts);
        }
    }

    /**
     * The server JVM's VmRSS (KiB), sampled every 200 ms; {@link #takePeak()} returns and resets
     * the peak.
     */
    static final class RssSampler {
        private final long pid;
        private final AtomicLong peak = new AtomicLong();
        private volatile boolean stopped;
        private Thread thread;

        RssSampler(long pid) {
            this.pid = pid;
        }

        void start() {
            thread =
                    new Thread(
                            () -> {
                                while (!stopped) {
                                    peak.accumulateAndGet(rss(pid), Math::max);
                                    sleep(200);
                                }
                            },
                            "rss-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        long takePeak() {
            return peak.getAndSet(rss(pid));
        }

        void stop() {
            stopped = true;
        }

        /**
         * VmRSS of the given pid or its largest child (the runnable jar's launcher forks the server
         * JVM).
         */
        static long rss(long pid) {
            if (pid <= 0) {
                return 0;
            }
            long best = status(pid);
            for (ProcessHandle child :
                    ProcessHandle.of(pid).map(p -> p.descendants().toList()).orElse(List.of())) {
                best = Math.max(best, status(child.pid()));
            }
            return best;
        }

        private static long status(long pid) {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                    if (line.startsWith("VmRSS:")) {
                        return Long.parseLong(line.replaceAll("[^0-9]", ""));
                    }
                }
            } catch (Exception gone) {
                // the process ended between the listing and the read
            }
            return 0;
        }
    }

    private static JsonObject ensure(Api api, String token, String prefix) {
        HttpResponse<String> r =
                api.send(
                        api.request("/api/v1/sandboxes", token)
                                .header("Content-Type", "application/json")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                "{\"definitionId\":\""
                                                        + prefix
                                                        + "-"
                                                        + UUID.randomUUID()
                                                        + "\",\"image\":\"agentbox/sandbox:busybox\"}")));
        if (r.statusCode() != 201 && r.statusCode() != 200) {
            throw new IllegalStateException("ensure failed: " + r.statusCode() + " " + r.body());
        }
        return Api.object(r);
    }

    /**
     * Through the API; a server too starved to answer must not leave the container behind, so then
     * by the engine.
     */
    private static void delete(Api api, String token, JsonObject sandbox) {
        String key = sandbox.getString("key");
        try {
            HttpResponse<String> r =
                    api.send(
                            api.request("/api/v1/sandboxes/" + key, token)
                                    .timeout(Duration.ofSeconds(60))
                                    .DELETE());
            if (r.statusCode() == 204) {
                return;
            }
            System.err.println("could not delete sandbox " + key + ": " + r.statusCode());
        } catch (RuntimeException e) {
            System.err.println("could not delete sandbox " + key + ": " + e);
        }
        DockerCli.run("rm", "-f", sandbox.getString("providerSandboxId"));
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
