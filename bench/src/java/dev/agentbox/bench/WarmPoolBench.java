package dev.agentbox.bench;

import dev.agentbox.it.Api;
import dev.agentbox.it.DockerCli;
import dev.agentbox.it.Runs;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * The warm pool's goal, measured side by side in one run against a running server with the pool on
 * (bench/warm-pool starts one): a pool hit's ensure + first exec against a dockerode container
 * create + start + first exec of the same image (the reference), and a pool miss (a policy no entry
 * serves) timed the same way. Prints a Markdown table and whether the target is met.
 *
 * <p>Every iteration runs the three cases once, in an order that rotates with the iteration, so the
 * drift of a shared machine hits every case alike. Before each case the bench waits until the pool
 * is full again ({@code agentbox_pool_ready} at the pool size): no case is timed while a refill is
 * making a container, except the one a hit starts itself (a refill begins right after each claim,
 * so a hit's first exec runs beside it, as it would in service). Each hit is checked to be one
 * ({@code agentbox_pool_hits_total} up by one, the container labelled {@code dev.agentbox.pool}),
 * each miss to be a miss; anything else fails the run. Every sandbox and container is removed right
 * after its case, untimed. The dockerode case is timed inside the Node process ({@link
 * DockerodeChild}); the others around the HTTP calls in this JVM. Warm-up iterations are discarded.
 *
 * <p>With pool size 0 (a server with the pool off) only the miss and the reference run: the figure
 * of today's ensure, to hold a pool miss against.
 */
public final class WarmPoolBench {

    /** One timed case: its elapsed milliseconds, whole and, for the HTTP cases, in two parts. */
    record Sample(double total, double ensure, double exec) {}

    @FunctionalInterface
    interface Timed {
        Sample run(int iteration) throws Exception;
    }

    record Case(String name, Timed body) {}

    private static final String TOKEN = "none";
    private static final String DEFAULT_IMAGE = "agentbox/sandbox:bookworm";
    private static final String POOL_LABEL = "dev.agentbox.pool";
    private static final String HIT = "hit";
    private static final String MISS = "miss";
    private static final String REFERENCE = "reference";

    /** A policy no pool entry serves: the default entry has no limits. */
    static final String MISS_POLICY = "{\"network\":\"none\",\"memoryMb\":1024}";

    /** Discarded iterations before the timed ones (each makes three containers). */
    static final int WARMUP = 3;

    /** HTTP execs on one sandbox before any timing, so the server's exec path is compiled. */
    static final int EXEC_WARMUP = 300;

    /** How long the pool may take to fill up again before the run fails. */
    static final long REFILL_TIMEOUT_MS = 120_000;

    private final Api api;
    private final String image;
    private final int poolSize;
    private final DockerodeChild node;
    private final String namePrefix;
    private final List<String> keys = new ArrayList<>();
    private final List<String> containers = new ArrayList<>();

    private WarmPoolBench(
            Api api, String image, int poolSize, DockerodeChild node, String namePrefix) {
        this.api = api;
        this.image = image;
        this.poolSize = poolSize;
        this.node = node;
        this.namePrefix = namePrefix;
    }

    public static void main(String[] args) throws Exception {
        Api api = new Api(args.length > 0 ? args[0] : "http://localhost:19580");
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        int poolSize = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        String image = args.length > 3 && !args[3].isEmpty() ? args[3] : DEFAULT_IMAGE;
        Path nodeDir = Path.of(args.length > 4 ? args[4] : "bench/exec-channel-node");
        String prefix = args.length > 5 ? args[5] : "agentbox-bench-warm-pool";
        if (poolSize < 0) {
            throw new IllegalArgumentException("pool size must be 0 (off) or more");
        }
        try (DockerodeChild node = DockerodeChild.start(nodeDir)) {
            WarmPoolBench bench = new WarmPoolBench(api, image, poolSize, node, prefix);
            try {
                bench.run(n);
            } finally {
                bench.cleanUp();
            }
        }
    }

    private void run(int n) throws Exception {
        if (poolSize > 0) {
            long t0 = System.nanoTime();
            awaitFullPool();
            System.err.printf(
                    Locale.ROOT,
                    "pool full (%d ready) %.1f s after the server was ready%n",
                    poolSize,
                    (System.nanoTime() - t0) / 1e9);
        }
        warmExecPath();
        List<Case> cases = new ArrayList<>();
        if (poolSize > 0) {
            cases.add(new Case(HIT, i -> ensureAndExec(true)));
        }
        cases.add(new Case(MISS, i -> ensureAndExec(false)));
        cases.add(new Case(REFERENCE, this::dockerode));
        Map<String, List<Sample>> samples = new LinkedHashMap<>();
        for (Case c : cases) {
            samples.put(c.name(), new ArrayList<>());
        }
        for (int i = -WARMUP; i < n; i++) {
            for (int j = 0; j < cases.size(); j++) {
                Case c = cases.get(Math.floorMod(i + j, cases.size()));
                awaitFullPool();
                Sample s = c.body().run(i);
                if (i >= 0) {
                    samples.get(c.name()).add(s);
                }
            }
        }
        System.out.println(report(n, samples));
    }

    /**
     * A fresh server interprets its ensure and exec paths; a server in service has compiled them.
     * One pooled sandbox takes {@link #EXEC_WARMUP} execs before any timing (the ensure path is
     * warmed by the discarded iterations).
     */
    private void warmExecPath() throws Exception {
        long t0 = System.nanoTime();
        String key = ensure(ensureBody(true)).getString("key");
        for (int i = 0; i < EXEC_WARMUP; i++) {
            exec(key);
        }
        delete(key);
        System.err.printf(
                Locale.ROOT,
                "server warmed up: %d execs in %.1f s%n",
                EXEC_WARMUP,
                (System.nanoTime() - t0) / 1e9);
    }

    /** A hit (the pool's image and policy) or a miss (a policy no entry serves), + first exec. */
    private Sample ensureAndExec(boolean hit) throws Exception {
        double hitsBefore = metric("agentbox_pool_hits_total");
        double missesBefore = metric("agentbox_pool_misses_total");
        String body = ensureBody(hit);
        long t0 = System.nanoTime();
        JsonObject sandbox = ensure(body);
        long t1 = System.nanoTime();
        String key = sandbox.getString("key");
        exec(key);
        long t2 = System.nanoTime();
        // Untimed from here: was it what it should be?
        double hits = metric("agentbox_pool_hits_total") - hitsBefore;
        double misses = metric("agentbox_pool_misses_total") - missesBefore;
        String container = sandbox.getString("providerSandboxId");
        String pool = label(container, POOL_LABEL);
        delete(key);
        if (!"created".equals(sandbox.getString("outcome", ""))) {
            throw new IllegalStateException("expected outcome created: " + sandbox);
        }
        if (hit && (hits != 1 || misses != 0 || pool.isEmpty())) {
            throw new IllegalStateException(
                    String.format(
                            Locale.ROOT,
                            "expected a pool hit, got hits +%.0f, misses +%.0f, container %s"
                                    + " labelled %s=%s",
                            hits,
                            misses,
                            container,
                            POOL_LABEL,
                            pool.isEmpty() ? "(absent)" : pool));
        }
        if (!hit && (hits != 0 || !pool.isEmpty())) {
            throw new IllegalStateException(
                    String.format(
                            Locale.ROOT,
                            "the miss case took from the pool: hits +%.0f, container %s labelled"
                                    + " %s=%s",
                            hits,
                            container,
                            POOL_LABEL,
                            pool));
        }
        return new Sample((t2 - t0) / 1e6, (t1 - t0) / 1e6, (t2 - t1) / 1e6);
    }

    /** dockerode create + start + exec `sh -c true` + inspect (timed in Node), then removal. */
    private Sample dockerode(int iteration) throws Exception {
        String name = namePrefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        containers.add(name);
        double ms = node.call("run", name, image);
        node.call("rm", name);
        containers.remove(name);
        return new Sample(ms, Double.NaN, Double.NaN);
    }

    private String ensureBody(boolean pooled) {
        StringBuilder b =
                new StringBuilder("{\"definitionId\":\"bench-warm-pool-")
                        .append(UUID.randomUUID())
                        .append('"');
        if (!image.equals(DEFAULT_IMAGE)) {
            b.append(",\"image\":").append(Runs.jsonString(image));
        }
        if (!pooled) {
            b.append(",\"policy\":").append(MISS_POLICY);
        }
        return b.append('}').toString();
    }

    private JsonObject ensure(String body) throws IOException {
        Blocking r = blocking("POST", "/api/v1/sandboxes", body);
        if (r.status() != 201) {
            throw new IllegalStateException("ensure: " + r.status() + " " + r.text());
        }
        JsonObject sandbox = Api.parse(r.text());
        keys.add(sandbox.getString("key"));
        return sandbox;
    }

    private void exec(String key) throws IOException {
        Blocking r =
                blocking("POST", "/api/v1/sandboxes/" + key + "/exec", "{\"command\":\"true\"}");
        if (r.status() != 200 || Api.parse(r.text()).getInt("exitCode", -1) != 0) {
            throw new IllegalStateException("exec: " + r.status() + " " + r.text());
        }
    }

    private void delete(String key) {
        HttpResponse<String> r = api.send(api.request("/api/v1/sandboxes/" + key, TOKEN).DELETE());
        if (r.statusCode() / 100 != 2) {
            throw new IllegalStateException(
                    "delete " + key + ": " + r.statusCode() + " " + r.body());
        }
        keys.remove(key);
    }

    /** Waits until the pool holds {@link #poolSize} ready sandboxes again; fails after a while. */
    private void awaitFullPool() throws InterruptedException {
        long deadline = System.nanoTime() + REFILL_TIMEOUT_MS * 1_000_000;
        double ready;
        while ((ready = metric("agentbox_pool_ready")) < poolSize) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        String.format(
                                Locale.ROOT,
                                "the pool did not refill to %d within %d s (agentbox_pool_ready"
                                        + " %.0f); see the server log",
                                poolSize,
                                REFILL_TIMEOUT_MS / 1000,
                                ready));
            }
            Thread.sleep(50);
        }
    }

    /**
     * The sum of a metric over its series in the Prometheus text of {@code /metrics} (one pool
     * here); 0 when the server has none yet.
     */
    private double metric(String name) {
        HttpResponse<String> r = api.send(api.request("/metrics").GET());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("/metrics: " + r.statusCode() + " " + r.body());
        }
        double sum = 0;
        for (String line : r.body().split("\n")) {
            if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
                String[] parts = line.trim().split("\\s+");
                sum += Double.parseDouble(parts[parts.length - 1]);
            }
        }
        return sum;
    }

    /** A label of a container, empty when absent. */
    private static String label(String container, String name) {
        return DockerCli.ok(
                        "inspect",
                        "--format",
                        "{{index .Config.Labels \"" + name + "\"}}",
                        container)
                .replace("<no value>", "");
    }

    /**
     * One call with a blocking keep-alive client, as {@link ExecChannelBench} times its HTTP cases:
     * the request written and the answer read on the timing thread.
     */
    private Blocking blocking(String method, String path, String json) throws IOException {
        HttpURLConnection c =
                (HttpURLConnection) URI.create(api.baseUrl() + path).toURL().openConnection();
        c.setRequestMethod(method);
        c.setRequestProperty("Authorization", "Bearer " + TOKEN);
        c.setConnectTimeout(5000);
        c.setReadTimeout(120_000);
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        c.setDoOutput(true);
        c.setRequestProperty("Content-Type", "application/json");
        c.setFixedLengthStreamingMode(body.length);
        try (OutputStream out = c.getOutputStream()) {
            out.write(body);
        }
        int status = c.getResponseCode();
        InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
        byte[] answer = in == null ? new byte[0] : in.readAllBytes();
        if (in != null) {
            in.close(); // read to the end: the connection goes back to the keep-alive pool
        }
        return new Blocking(status, answer);
    }

    record Blocking(int status, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** Removes what a failed case left: its sandbox through the API, its container by name. */
    private void cleanUp() {
        for (String key : List.copyOf(keys)) {
            try {
                delete(key);
            } catch (RuntimeException e) {
                System.err.println("cleanup: " + e.getMessage());
            }
        }
        for (String name : List.copyOf(containers)) {
            try {
                node.call("rm", name);
            } catch (Exception e) {
                System.err.println("cleanup: dockerode rm " + name + ": " + e.getMessage());
            }
        }
    }

    private String report(int n, Map<String, List<Sample>> samples) {
        boolean pool = poolSize > 0;
        double[] miss = totals(samples.get(MISS));
        double[] ref = totals(samples.get(REFERENCE));
        double refMedian = median(ref);
        StringBuilder out = new StringBuilder();
        out.append(
                String.format(
                        Locale.ROOT,
                        "Image `%s`, %s; %d iterations after %d warm-up, the %s cases"
                                + " interleaved%s; server warmed up by %d HTTP execs; HTTP cases"
                                + " timed with a blocking keep-alive client (HttpURLConnection),"
                                + " dockerode inside Node.%n%n",
                        image,
                        pool
                                ? "pool size "
                                        + poolSize
                                        + " (one entry: the image, default policy)"
                                : "pool off (size 0)",
                        n,
                        WARMUP,
                        pool ? "three" : "two",
                        pool ? ", each started with the pool full" : "",
                        EXEC_WARMUP));
        out.append("| case | n | median ms | p95 ms | median vs dockerode |\n");
        out.append("|---|---:|---:|---:|---:|\n");
        if (pool) {
            List<Sample> hit = samples.get(HIT);
            row(out, "(a) pool hit: ensure + first exec `true`", totals(hit), refMedian);
            row(out, "(a1) of which ensure (hit)", ensures(hit), refMedian);
            row(out, "(a2) of which first exec", execs(hit), refMedian);
        }
        row(
                out,
                (pool ? "(b) pool miss (policy memoryMb=1024, not pooled)" : "(b) no pool")
                        + ": ensure + first exec `true`",
                miss,
                refMedian);
        row(out, "(b1) of which ensure (create)", ensures(samples.get(MISS)), refMedian);
        row(out, "(b2) of which first exec", execs(samples.get(MISS)), refMedian);
        row(
                out,
                "(c) dockerode container create + start + exec `sh -c true` + inspect (reference)",
                ref,
                refMedian);
        out.append('\n');
        if (pool) {
            double hitRatio = median(totals(samples.get(HIT))) / refMedian;
            out.append(
                    String.format(
                            Locale.ROOT,
                            "pool hit ensure+exec / dockerode = %.3f (target <= 0.1): %s%n",
                            hitRatio,
                            hitRatio <= 0.1 ? "met" : "NOT met"));
        }
        out.append(
                String.format(
                        Locale.ROOT,
                        "%s / dockerode = %.3f%n",
                        pool ? "pool miss" : "ensure without a pool (size 0)",
                        median(miss) / refMedian));
        return out.toString();
    }

    private static void row(StringBuilder out, String name, double[] v, double ref) {
        out.append(
                String.format(
                        Locale.ROOT,
                        "| %s | %d | %.1f | %.1f | %.3f |%n",
                        name,
                        v.length,
                        median(v),
                        p95(v),
                        median(v) / ref));
    }

    private static double[] totals(List<Sample> s) {
        return s.stream().mapToDouble(Sample::total).toArray();
    }

    private static double[] ensures(List<Sample> s) {
        return s.stream().mapToDouble(Sample::ensure).toArray();
    }

    private static double[] execs(List<Sample> s) {
        return s.stream().mapToDouble(Sample::exec).toArray();
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        int m = s.length / 2;
        return s.length % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2.0;
    }

    private static double p95(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[Math.min(s.length - 1, (int) Math.ceil(s.length * 0.95) - 1)];
    }
}
