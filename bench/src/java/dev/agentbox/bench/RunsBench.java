package dev.agentbox.bench;

import dev.agentbox.it.Api;
import dev.agentbox.it.Runs;
import dev.agentbox.it.SseClient;
import jakarta.json.JsonObject;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Durable-run latencies against a running server (bench/runs starts one): from a journal line
 * written in the container to the SSE client, with 1 and with 100 concurrent readers, and the
 * server's resident memory while 50 runs are active at once.
 *
 * <p>The agent prints {@code {"t":<epoch ms>}} lines from the container's clock (the same kernel
 * clock as the client's); each becomes a CUSTOM agent.output chunk whose value carries the write
 * time.
 */
public final class RunsBench {

    public static void main(String[] args) throws Exception {
        Api api = new Api(args.length > 0 ? args[0] : "http://localhost:19380");
        long serverPid = args.length > 1 ? Long.parseLong(args[1]) : -1;
        int lines = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        String key =
                ensure(
                        api,
                        "{\"definitionId\":\"bench-runs-"
                                + UUID.randomUUID()
                                + "\",\"policy\":{\"pids\":4096,\"memoryMb\":4096}}");
        try {
            StringBuilder out =
                    new StringBuilder(
                            "| case | samples | median ms | p95 ms |\n|---|---:|---:|---:|\n");
            row(out, "journal line → SSE client, 1 reader", latency(api, key, lines, 1));
            row(out, "journal line → SSE client, 100 readers", latency(api, key, lines, 100));
            out.append(
                    String.format(
                            Locale.ROOT,
                            "%nserver RSS with 50 concurrent runs: peak %.0f MiB (idle before: %.0f MiB)%n",
                            rssWithConcurrentRuns(api, key, serverPid, 50) / 1024.0,
                            rssBefore / 1024.0));
            System.out.println(out);
        } finally {
            api.send(api.request("/api/v1/sandboxes/" + key, "none").DELETE());
        }
    }

    private static long rssBefore;

    private static long[] latency(Api api, String key, int lines, int readers) throws Exception {
        String runId = "bench-" + UUID.randomUUID();
        // The agent waits for a gate the bench opens once every reader is attached, so a
        // slow connect is never measured as delivery latency.
        String gate = "/tmp/bench-gate-" + runId;
        String agent =
                "echo ready; while [ ! -f "
                        + gate
                        + " ]; do sleep 0.02; done; i=0; while [ $i -lt "
                        + lines
                        + " ]; do echo \"{\\\"t\\\":$(date +%s%3N)}\"; i=$((i+1)); sleep 0.02; done";
        start(api, runId, key, agent);
        List<CompletableFuture<List<Long>>> clients = new ArrayList<>();
        // One thread per reader: the common pool has one thread on two cores, and readers
        // queued behind each other would measure the client, not the server.
        java.util.concurrent.ExecutorService pool =
                java.util.concurrent.Executors.newFixedThreadPool(readers);
        java.util.concurrent.CountDownLatch attached =
                new java.util.concurrent.CountDownLatch(readers);
        for (int r = 0; r < readers; r++) {
            clients.add(
                    CompletableFuture.supplyAsync(
                            () -> {
                                List<Long> samples = new ArrayList<>();
                                try (SseClient sse =
                                        SseClient.open(
                                                api.request(
                                                        Runs.path(runId) + "/events", "none"))) {
                                    SseClient.Event e;
                                    while ((e = sse.next(Duration.ofSeconds(120))) != null) {
                                        long now = System.currentTimeMillis();
                                        JsonObject c = Api.parse(e.data());
                                        if (c.getString("type").equals("RUN_STARTED")) {
                                            attached.countDown();
                                        }
                                        if (c.getString("type").equals("CUSTOM")
                                                && c.getString("name").equals("agent.output")
                                                && c.getJsonObject("value").containsKey("t")) {
                                            samples.add(
                                                    now
                                                            - c.getJsonObject("value")
                                                                    .getJsonNumber("t")
                                                                    .longValue());
                                        }
                                    }
                                }
                                return samples;
                            },
                            pool));
        }
        if (!attached.await(120, java.util.concurrent.TimeUnit.SECONDS)) {
            throw new IllegalStateException("readers did not attach in time");
        }
        api.send(
                api.request("/api/v1/sandboxes/" + key + "/exec", "none")
                        .header("Content-Type", "application/json")
                        .POST(
                                HttpRequest.BodyPublishers.ofString(
                                        "{\"command\":\"touch " + gate + "\"}")));
        List<Long> all = new ArrayList<>();
        for (CompletableFuture<List<Long>> c : clients) {
            List<Long> s = c.get();
            if (s.size() != lines) {
                throw new IllegalStateException(
                        "a reader saw " + s.size() + " of " + lines + " lines");
            }
            all.addAll(s);
        }
        pool.shutdown();
        return all.stream().mapToLong(Long::longValue).toArray();
    }

    private static long rssWithConcurrentRuns(Api api, String key, long pid, int runs)
            throws Exception {
        rssBefore = rss(pid);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            String runId = "bench-rss-" + UUID.randomUUID();
            start(
                    api,
                    runId,
                    key,
                    "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do echo '{\"delta\":\"tick\"}'; sleep 1; done");
            ids.add(runId);
        }
        AtomicLong peak = new AtomicLong();
        long deadline = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < deadline) {
            peak.accumulateAndGet(rss(pid), Math::max);
            long running =
                    ids.stream()
                            .filter(
                                    id ->
                                            Api.object(api.get(Runs.path(id), "none"))
                                                    .getString("status")
                                                    .equals("running"))
                            .count();
            if (running == 0) {
                break;
            }
            Thread.sleep(500);
        }
        for (String id : ids) {
            String status = Api.object(api.get(Runs.path(id), "none")).getString("status");
            if (!status.equals("completed")) {
                throw new IllegalStateException(id + " ended " + status);
            }
        }
        return peak.get();
    }

    /**
     * VmRSS in KiB of the server JVM: the given pid or its child (the runnable jar forks the
     * server).
     */
    private static long rss(long pid) throws Exception {
        if (pid <= 0) {
            return 0;
        }
        long best = status(pid);
        for (ProcessHandle child :
                ProcessHandle.of(pid).map(p -> p.children().toList()).orElse(List.of())) {
            best = Math.max(best, status(child.pid()));
        }
        return best;
    }

    private static long status(long pid) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return 0;
    }

    private static void start(Api api, String runId, String key, String command) {
        HttpResponse<String> r =
                api.send(
                        api.request("/api/v1/runs", "none")
                                .header("Content-Type", "application/json")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                Runs.runBody(
                                                        runId,
                                                        "{\"key\":\"" + key + "\"}",
                                                        command,
                                                        ""))));
        if (r.statusCode() != 202) {
            throw new IllegalStateException("run start failed: " + r.body());
        }
    }

    private static String ensure(Api api, String body) {
        HttpResponse<String> r =
                api.send(
                        api.request("/api/v1/sandboxes", "none")
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body)));
        if (r.statusCode() != 201 && r.statusCode() != 200) {
            throw new IllegalStateException(r.body());
        }
        return Api.object(r).getString("key");
    }

    private static void row(StringBuilder out, String name, long[] ms) {
        long[] s = ms.clone();
        Arrays.sort(s);
        double median =
                s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2.0;
        long p95 = s[Math.min(s.length - 1, (int) Math.ceil(s.length * 0.95) - 1)];
        out.append(
                String.format(
                        Locale.ROOT, "| %s | %d | %.0f | %d |%n", name, s.length, median, p95));
    }
}
