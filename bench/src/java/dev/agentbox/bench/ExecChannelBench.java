package dev.agentbox.bench;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.httpclient5.ApacheDockerHttpClient;
import dev.agentbox.it.Api;
import dev.agentbox.it.DockerCli;
import dev.agentbox.it.Runs;
import dev.agentbox.it.SseClient;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * The sandbox channel's goal, measured side by side in one run against a running server
 * (bench/exec-channel starts one): HTTP exec, 4 KiB file read and write through the API against the
 * same operations through dockerode (the reference), bare docker-java and the docker CLI, on one
 * sandbox; and journal line → SSE client latency. Prints a Markdown table and whether each target
 * is met.
 *
 * <p>Every case of a group runs once per iteration, in an order that rotates with the iteration, so
 * the drift of a shared machine and any after-effect of the previous call hit every case alike. The
 * dockerode cases are timed inside the Node process ({@link DockerodeChild}); the others around the
 * call in this JVM. Warm-up iterations are discarded.
 */
public final class ExecChannelBench {

    /** One timed operation; returns its elapsed milliseconds. */
    @FunctionalInterface
    interface Timed {
        double run() throws Exception;
    }

    record Case(String label, Timed body) {}

    private static final String TOKEN = "none";
    private static final int FILE_BYTES = 4096;
    private static final String DIR = "/workspace/bench-exec-channel";
    private static final String READ_PATH = DIR + "/read.bin";

    /** How many times each HTTP case runs alone before the timed, interleaved iterations. */
    static final int SERVER_WARMUP = 2000;

    /** One client for every timed HTTP call, so all of them share its connection pool. */
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    public static void main(String[] args) throws Exception {
        Api api = new Api(args.length > 0 ? args[0] : "http://localhost:19480");
        int execN = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        int fileN = args.length > 2 ? Integer.parseInt(args[2]) : 100;
        int lines = args.length > 3 ? Integer.parseInt(args[3]) : 200;
        String image = args.length > 4 ? args[4] : "agentbox/sandbox:bookworm";
        Path nodeDir = Path.of(args.length > 5 ? args[5] : "bench/exec-channel-node");

        JsonObject sandbox = ensure(api, image);
        String key = sandbox.getString("key");
        String container = sandbox.getString("providerSandboxId");
        try (DockerodeChild node = DockerodeChild.start(nodeDir);
                DockerClient bare = dockerJava()) {
            // Which path the server took: an image with the helper carries
            // dev.agentbox.sandboxd=1, a container given a channel dev.agentbox.channel=1.
            String helper = label(image, "dev.agentbox.sandboxd");
            String channel = label(container, "dev.agentbox.channel");
            byte[] content = pattern(FILE_BYTES);
            expect(put(api, key, READ_PATH, content), 204, "seed write");
            warmServer(api, key, content);

            Map<String, double[]> exec =
                    interleave(
                            List.of(
                                    new Case(
                                            "(a) HTTP exec `true` (agentbox), request in one write",
                                            () -> httpExec(api, key, Send.ONE_WRITE)),
                                    new Case(
                                            "(b) bare docker-java exec create+start+wait+inspect of `sh -c true`",
                                            () -> bareExec(bare, container)),
                                    new Case(
                                            "(c) CLI `docker exec <id> sh -c true`",
                                            () -> cliExec(container)),
                                    new Case(
                                            "(d) dockerode exec create+start+inspect of `sh -c true` (reference)",
                                            () -> node.call("exec", container)),
                                    new Case(
                                            "(a2) HTTP exec `true` (agentbox) through java.net.http's HttpClient",
                                            () -> httpExecJavaNetHttp(api, key)),
                                    new Case(
                                            "(a3) HTTP exec `true` (agentbox), headers and body in two writes",
                                            () -> httpExec(api, key, Send.STREAMED))),
                            20,
                            execN);
            Map<String, double[]> read =
                    interleave(
                            List.of(
                                    new Case(
                                            "(e) HTTP read of a 4 KiB file (agentbox)",
                                            () -> httpRead(api, key, content)),
                                    new Case(
                                            "(f) dockerode exec `cat` create+start+demux+inspect (reference)",
                                            () ->
                                                    node.call(
                                                            "cat",
                                                            container,
                                                            READ_PATH,
                                                            String.valueOf(FILE_BYTES))),
                                    new Case(
                                            "(f2) dockerode getArchive (tar of the file)",
                                            () ->
                                                    node.call(
                                                            "getarchive",
                                                            container,
                                                            READ_PATH,
                                                            String.valueOf(FILE_BYTES))),
                                    new Case(
                                            "(f3) docker-java copyArchiveFromContainer",
                                            () -> bareCopyOut(bare, container))),
                            10,
                            fileN);
            Map<String, double[]> write =
                    interleave(
                            List.of(
                                    new Case(
                                            "(g) HTTP write of a 4 KiB file (agentbox)",
                                            () -> httpWrite(api, key, content)),
                                    new Case(
                                            "(h) dockerode putArchive of a one-file 4 KiB tar (reference)",
                                            () ->
                                                    node.call(
                                                            "put",
                                                            container,
                                                            DIR,
                                                            "node-write.bin",
                                                            String.valueOf(FILE_BYTES)))),
                            10,
                            fileN);
            double[] journal = journalLatency(api, key, lines);
            System.out.println(
                    report(
                            image, helper, container, channel, execN, fileN, exec, read, write,
                            journal));
        } finally {
            api.send(api.request("/api/v1/sandboxes/" + key, TOKEN).DELETE());
        }
    }

    /**
     * Runs every case once per iteration, starting with a different case each iteration; the first
     * {@code warmup} iterations are discarded. Returns the samples per case, in case order.
     */
    static Map<String, double[]> interleave(List<Case> cases, int warmup, int n) throws Exception {
        Map<String, double[]> samples = new LinkedHashMap<>();
        for (Case c : cases) {
            samples.put(c.label(), new double[n]);
        }
        int k = cases.size();
        for (int i = -warmup; i < n; i++) {
            for (int j = 0; j < k; j++) {
                Case c = cases.get(Math.floorMod(i + j, k));
                double ms = c.body().run();
                if (i >= 0) {
                    samples.get(c.label())[i] = ms;
                }
            }
        }
        return samples;
    }

    /**
     * A server in service has run these paths many thousands of times: its JIT has compiled them. A
     * freshly started one interprets them, which would measure the JVM's start-up rather than the
     * server. So each HTTP case runs alone {@link #SERVER_WARMUP} times before any timing.
     */
    private static void warmServer(Api api, String key, byte[] content) throws Exception {
        long t0 = System.nanoTime();
        for (int i = 0; i < SERVER_WARMUP; i++) {
            httpExec(api, key, i % 2 == 0 ? Send.ONE_WRITE : Send.STREAMED);
            httpRead(api, key, content);
            httpWrite(api, key, content);
        }
        System.err.printf(
                "server warmed up: %d execs, reads and writes in %.1f s%n",
                SERVER_WARMUP, (System.nanoTime() - t0) / 1e9);
    }

    /** How a {@link #blocking} call sends its body. */
    enum Send {
        /**
         * The client's default: the body is buffered and leaves with the headers in one write, one
         * TCP segment for a small request (as curl sends a small POST).
         */
        ONE_WRITE,
        /**
         * Fixed-length streaming: the headers are written when the body's stream opens, the body
         * after them. For a small body that is two segments, and Nagle's algorithm holds the second
         * until the first has been acknowledged.
         */
        STREAMED
    }

    /**
     * One call with a blocking keep-alive client ({@link HttpURLConnection}): the request is
     * written and the answer read on the timing thread, as a Node.js client does on its event loop.
     * {@code java.net.http}'s client hands every call to its selector thread and back, which on
     * this machine adds about a millisecond per call that is the client's, not the server's; its
     * figure for the exec is reported beside this one ({@link #httpExecJavaNetHttp}).
     */
    private static Blocking blocking(
            Api api, String method, String path, String contentType, byte[] body)
            throws IOException {
        return blocking(api, method, path, contentType, body, Send.STREAMED);
    }

    private static Blocking blocking(
            Api api, String method, String path, String contentType, byte[] body, Send send)
            throws IOException {
        HttpURLConnection c =
                (HttpURLConnection) URI.create(api.baseUrl() + path).toURL().openConnection();
        c.setRequestMethod(method);
        c.setRequestProperty("Authorization", "Bearer " + TOKEN);
        c.setConnectTimeout(5000);
        c.setReadTimeout(60000);
        if (body != null) {
            c.setDoOutput(true);
            c.setRequestProperty("Content-Type", contentType);
            if (send == Send.STREAMED) {
                c.setFixedLengthStreamingMode(body.length);
            }
            try (OutputStream out = c.getOutputStream()) {
                out.write(body);
            }
        }
        int status = c.getResponseCode();
        InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
        byte[] answer = in == null ? new byte[0] : in.readAllBytes();
        if (in != null) {
            in.close(); // read to the end and closed: the connection goes back to the
            // keep-alive pool
        }
        return new Blocking(status, answer);
    }

    /** A blocking call's status and body. */
    record Blocking(int status, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private static double httpExec(Api api, String key, Send send) throws Exception {
        byte[] body = "{\"command\":\"true\"}".getBytes(StandardCharsets.UTF_8);
        long t0 = System.nanoTime();
        Blocking resp =
                blocking(
                        api,
                        "POST",
                        "/api/v1/sandboxes/" + key + "/exec",
                        "application/json",
                        body,
                        send);
        double ms = (System.nanoTime() - t0) / 1e6;
        if (resp.status() != 200 || !resp.text().replace(" ", "").contains("\"exitCode\":0")) {
            throw new IllegalStateException("HTTP exec: " + resp.status() + " " + resp.text());
        }
        return ms;
    }

    private static double httpExecJavaNetHttp(Api api, String key) throws Exception {
        HttpRequest r =
                api.request("/api/v1/sandboxes/" + key + "/exec", TOKEN)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"command\":\"true\"}"))
                        .build();
        long t0 = System.nanoTime();
        HttpResponse<String> resp = HTTP.send(r, HttpResponse.BodyHandlers.ofString());
        double ms = (System.nanoTime() - t0) / 1e6;
        expect(resp, 200, "HTTP exec");
        if (Api.object(resp).getInt("exitCode") != 0) {
            throw new IllegalStateException("HTTP exec: " + resp.body());
        }
        return ms;
    }

    private static double httpRead(Api api, String key, byte[] content) throws Exception {
        long t0 = System.nanoTime();
        Blocking resp = blocking(api, "GET", filesPath(key, READ_PATH), null, null);
        double ms = (System.nanoTime() - t0) / 1e6;
        if (resp.status() != 200) {
            throw new IllegalStateException("HTTP read: " + resp.status() + " " + resp.text());
        }
        if (!Arrays.equals(resp.body(), content)) {
            throw new IllegalStateException("HTTP read: " + resp.body().length + " other bytes");
        }
        return ms;
    }

    private static double httpWrite(Api api, String key, byte[] content) throws Exception {
        long t0 = System.nanoTime();
        Blocking resp =
                blocking(
                        api,
                        "PUT",
                        filesPath(key, DIR + "/http-write.bin"),
                        "application/octet-stream",
                        content);
        double ms = (System.nanoTime() - t0) / 1e6;
        if (resp.status() != 204) {
            throw new IllegalStateException("HTTP write: " + resp.status() + " " + resp.text());
        }
        return ms;
    }

    private static HttpResponse<String> put(Api api, String key, String path, byte[] content)
            throws Exception {
        return HTTP.send(
                api.request(filesPath(key, path), TOKEN)
                        .header("Content-Type", "application/octet-stream")
                        .PUT(HttpRequest.BodyPublishers.ofByteArray(content))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String filesPath(String key, String path) {
        return "/api/v1/sandboxes/"
                + key
                + "/files?path="
                + URLEncoder.encode(path, StandardCharsets.UTF_8);
    }

    private static double bareExec(DockerClient client, String container) throws Exception {
        long t0 = System.nanoTime();
        String execId =
                client.execCreateCmd(container)
                        .withCmd("sh", "-c", "true")
                        .withAttachStdout(true)
                        .withAttachStderr(true)
                        .exec()
                        .getId();
        client.execStartCmd(execId).exec(new ResultCallback.Adapter<Frame>()).awaitCompletion();
        Long exit = client.inspectExecCmd(execId).exec().getExitCodeLong();
        double ms = (System.nanoTime() - t0) / 1e6;
        if (exit == null || exit != 0) {
            throw new IllegalStateException("bare exec exit " + exit);
        }
        return ms;
    }

    private static double bareCopyOut(DockerClient client, String container) throws Exception {
        long t0 = System.nanoTime();
        byte[] tar;
        try (InputStream in = client.copyArchiveFromContainerCmd(container, READ_PATH).exec()) {
            tar = in.readAllBytes();
        }
        double ms = (System.nanoTime() - t0) / 1e6;
        // The first tar header's size field (octal, bytes 124..135) is the file's size.
        String size = new String(tar, 124, 12, StandardCharsets.US_ASCII).replace("\0", "").trim();
        if (Long.parseLong(size, 8) != FILE_BYTES) {
            throw new IllegalStateException("copyArchiveFromContainer: entry of " + size);
        }
        return ms;
    }

    private static double cliExec(String container) {
        long t0 = System.nanoTime();
        DockerCli.Result r = DockerCli.run("exec", container, "sh", "-c", "true");
        double ms = (System.nanoTime() - t0) / 1e6;
        if (r.exitCode() != 0) {
            throw new IllegalStateException("docker exec: " + r.out());
        }
        return ms;
    }

    /**
     * Journal line → SSE client, one reader, as RunsBench measures it: a command agent prints
     * {@code {"tus":<epoch µs>}} from the container's clock (the host kernel's, so comparable with
     * this JVM's), each line becomes an {@code agent.output} chunk, and the reader subtracts the
     * stamp from its arrival time. The agent waits for a gate the bench opens once the reader has
     * seen RUN_STARTED, so a slow attach is never measured as delivery latency. Needs GNU {@code
     * date} ({@code %6N}) in the image.
     */
    private static double[] journalLatency(Api api, String key, int lines) throws Exception {
        String runId = "bench-channel-" + UUID.randomUUID();
        String gate = "/tmp/bench-gate-" + runId;
        String agent =
                "echo ready; while [ ! -f "
                        + gate
                        + " ]; do sleep 0.02; done; i=0; while [ $i -lt "
                        + lines
                        + " ]; do echo \"{\\\"tus\\\":$(date +%s%6N)}\"; i=$((i+1)); sleep 0.02; done";
        HttpResponse<String> started =
                api.send(
                        api.request("/api/v1/runs", TOKEN)
                                .header("Content-Type", "application/json")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                Runs.runBody(
                                                        runId,
                                                        "{\"key\":\"" + key + "\"}",
                                                        agent,
                                                        ""))));
        expect(started, 202, "run start");
        List<Double> samples = new ArrayList<>();
        boolean gateOpen = false;
        try (SseClient sse = SseClient.open(api.request(Runs.path(runId) + "/events", TOKEN))) {
            SseClient.Event e;
            while ((e = sse.next(Duration.ofSeconds(120))) != null) {
                Instant now = Instant.now();
                JsonObject c = Api.parse(e.data());
                if (!gateOpen && c.getString("type").equals("RUN_STARTED")) {
                    gateOpen = true;
                    api.send(
                            api.request("/api/v1/sandboxes/" + key + "/exec", TOKEN)
                                    .header("Content-Type", "application/json")
                                    .POST(
                                            HttpRequest.BodyPublishers.ofString(
                                                    "{\"command\":\"touch " + gate + "\"}")));
                }
                if (c.getString("type").equals("CUSTOM")
                        && c.getString("name").equals("agent.output")
                        && c.getJsonObject("value").containsKey("tus")) {
                    long stamp = c.getJsonObject("value").getJsonNumber("tus").longValue();
                    samples.add(ChronoUnit.MICROS.between(Instant.EPOCH, now) / 1e3 - stamp / 1e3);
                }
            }
        }
        if (samples.size() != lines) {
            throw new IllegalStateException("the reader saw " + samples.size() + " of " + lines);
        }
        return samples.stream().mapToDouble(Double::doubleValue).toArray();
    }

    private static String report(
            String image,
            String helper,
            String container,
            String channel,
            int execN,
            int fileN,
            Map<String, double[]> exec,
            Map<String, double[]> read,
            Map<String, double[]> write,
            double[] journal) {
        StringBuilder out = new StringBuilder();
        out.append(
                String.format(
                        Locale.ROOT,
                        "Image `%s` (dev.agentbox.sandboxd=%s), container `%s`"
                                + " (dev.agentbox.channel=%s: %s); server warmed up by %d calls of"
                                + " each HTTP case; exec %d iterations after 20 warm-up, file %d"
                                + " after 10, interleaved; HTTP cases timed with a blocking"
                                + " keep-alive client (HttpURLConnection; exec (a) in its default"
                                + " mode, one write per request; (a3), file reads and writes with"
                                + " fixed-length streaming).%n%n",
                        image,
                        helper.isEmpty() ? "(absent)" : helper,
                        container,
                        channel.isEmpty() ? "(absent)" : channel,
                        "1".equals(channel) ? "sandbox channel" : "docker exec path",
                        SERVER_WARMUP,
                        execN,
                        fileN));
        out.append("| case | n | median ms | p95 ms | median vs dockerode |\n");
        out.append("|---|---:|---:|---:|---:|\n");
        double execRef = rows(out, exec);
        double readRef = rows(out, read);
        double writeRef = rows(out, write);
        out.append(
                String.format(
                        Locale.ROOT,
                        "| (i) journal line → SSE client, 1 reader | %d | %.1f | %.1f | |%n%n",
                        journal.length,
                        median(journal),
                        p95(journal)));
        target(out, "HTTP exec `true`", median(first(exec)) / execRef);
        target(out, "HTTP read 4 KiB", median(first(read)) / readRef);
        target(out, "HTTP write 4 KiB", median(first(write)) / writeRef);
        double p95 = p95(journal);
        out.append(
                String.format(
                        Locale.ROOT,
                        "journal line → SSE client p95 = %.1f ms (target <= 20): %s%n",
                        p95,
                        p95 <= 20 ? "met" : "NOT met"));
        return out.toString();
    }

    /** Appends a group's rows; returns the median of its reference (dockerode) case. */
    private static double rows(StringBuilder out, Map<String, double[]> group) {
        double ref =
                group.entrySet().stream()
                        .filter(e -> e.getKey().contains("(reference)"))
                        .mapToDouble(e -> median(e.getValue()))
                        .findFirst()
                        .orElseThrow();
        for (Map.Entry<String, double[]> e : group.entrySet()) {
            double[] v = e.getValue();
            out.append(
                    String.format(
                            Locale.ROOT,
                            "| %s | %d | %.1f | %.1f | %.3f |%n",
                            e.getKey(),
                            v.length,
                            median(v),
                            p95(v),
                            median(v) / ref));
        }
        return ref;
    }

    private static void target(StringBuilder out, String what, double ratio) {
        out.append(
                String.format(
                        Locale.ROOT,
                        "%s / dockerode (median) = %.3f (target <= 0.1): %s%n",
                        what,
                        ratio,
                        ratio <= 0.1 ? "met" : "NOT met"));
    }

    private static double[] first(Map<String, double[]> group) {
        return group.values().iterator().next();
    }

    private static JsonObject ensure(Api api, String image) {
        HttpResponse<String> r =
                api.send(
                        api.request("/api/v1/sandboxes", TOKEN)
                                .header("Content-Type", "application/json")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                "{\"definitionId\":\"bench-exec-channel-"
                                                        + UUID.randomUUID()
                                                        + "\",\"image\":"
                                                        + Runs.jsonString(image)
                                                        + "}")));
        if (r.statusCode() != 201 && r.statusCode() != 200) {
            throw new IllegalStateException("ensure failed: " + r.statusCode() + " " + r.body());
        }
        return Api.object(r);
    }

    private static DockerClient dockerJava() {
        DockerClientConfig cfg =
                DefaultDockerClientConfig.createDefaultConfigBuilder()
                        .withDockerHost("unix:///var/run/docker.sock")
                        .build();
        return DockerClientImpl.getInstance(
                cfg,
                new ApacheDockerHttpClient.Builder()
                        .dockerHost(cfg.getDockerHost())
                        .maxConnections(100)
                        .connectionTimeout(Duration.ofSeconds(5))
                        .build());
    }

    /** A label of a container or image, empty when absent. */
    private static String label(String object, String name) {
        return DockerCli.ok(
                        "inspect", "--format", "{{index .Config.Labels \"" + name + "\"}}", object)
                .replace("<no value>", "");
    }

    private static void expect(HttpResponse<?> r, int status, String what) {
        if (r.statusCode() != status) {
            throw new IllegalStateException(what + ": " + r.statusCode() + " " + r.body());
        }
    }

    private static byte[] pattern(int size) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) ('a' + i % 26);
        }
        return b;
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
