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
import jakarta.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * Sandbox API latencies against a running server (bench/sandboxes starts one): ensure create (empty
 * setup), warm resume, restore from snapshot, and the HTTP exec round trip against a bare
 * docker-java exec on the same container. Prints a Markdown table.
 */
public final class SandboxApiBench {

    public static void main(String[] args) throws Exception {
        Api api = new Api(args.length > 0 ? args[0] : "http://localhost:19380");
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        int creates = args.length > 2 ? Integer.parseInt(args[2]) : 15;
        String token = "none";
        List<String> keys = new ArrayList<>();
        try {
            long[] create = new long[creates];
            for (int i = -2; i < creates; i++) {
                long t0 = System.nanoTime();
                JsonObject s =
                        ensure(
                                api,
                                "{\"definitionId\":\"bench-create-" + UUID.randomUUID() + "\"}");
                long t = System.nanoTime() - t0;
                keys.add(s.getString("key"));
                if (i >= 0) {
                    create[i] = t;
                }
            }
            String body =
                    "{\"definitionId\":\"bench-resume-"
                            + UUID.randomUUID()
                            + "\",\"lifecycle\":{\"snapshot\":\"after-setup\"}}";
            JsonObject sandbox = ensure(api, body);
            keys.add(sandbox.getString("key"));
            long[] resume = new long[n];
            for (int i = -20; i < n; i++) {
                long t0 = System.nanoTime();
                ensure(api, body);
                if (i >= 0) {
                    resume[i] = System.nanoTime() - t0;
                }
            }
            DockerClientConfig cfg =
                    DefaultDockerClientConfig.createDefaultConfigBuilder()
                            .withDockerHost("unix:///var/run/docker.sock")
                            .build();
            DockerClient bare =
                    DockerClientImpl.getInstance(
                            cfg,
                            new ApacheDockerHttpClient.Builder()
                                    .dockerHost(cfg.getDockerHost())
                                    .maxConnections(100)
                                    .connectionTimeout(Duration.ofSeconds(5))
                                    .build());
            String container = sandbox.getString("providerSandboxId");
            String key = sandbox.getString("key");
            long[] httpExec = new long[n];
            long[] bareExec = new long[n];
            for (int i = -20; i < n; i++) {
                long t0 = System.nanoTime();
                HttpResponse<String> r =
                        api.send(
                                api.request("/api/v1/sandboxes/" + key + "/exec", token)
                                        .header("Content-Type", "application/json")
                                        .POST(
                                                HttpRequest.BodyPublishers.ofString(
                                                        "{\"command\":\"true\"}")));
                long t1 = System.nanoTime();
                bareExec(bare, container);
                long t2 = System.nanoTime();
                if (r.statusCode() != 200) {
                    throw new IllegalStateException(r.body());
                }
                if (i >= 0) {
                    httpExec[i] = t1 - t0;
                    bareExec[i] = t2 - t1;
                }
            }
            long[] restore = new long[Math.max(1, creates / 2)];
            for (int i = 0; i < restore.length; i++) {
                String current = ensure(api, body).getString("providerSandboxId");
                DockerCli.ok("rm", "-f", current);
                long t0 = System.nanoTime();
                JsonObject restored = ensure(api, body);
                restore[i] = System.nanoTime() - t0;
                if (!restored.getString("outcome").equals("restored")) {
                    throw new IllegalStateException("expected restored: " + restored);
                }
            }
            StringBuilder out =
                    new StringBuilder("| case | n | median ms | p95 ms |\n|---|---:|---:|---:|\n");
            row(out, "ensure: create (empty setup)", create);
            row(out, "ensure: warm resume", resume);
            row(out, "ensure: restore from snapshot (after `docker rm -f`)", restore);
            row(out, "HTTP exec `true` (HTTP → provider → container)", httpExec);
            row(out, "bare docker-java exec `sh -c true`", bareExec);
            out.append(
                    String.format(
                            Locale.ROOT,
                            "%nHTTP exec / bare docker-java (median) = %.2f (target <= 1.5); warm resume median %.1f ms (target <= 30)%n",
                            median(httpExec) / median(bareExec),
                            median(resume) / 1e6));
            System.out.println(out);
        } finally {
            for (String k : keys) {
                api.send(api.request("/api/v1/sandboxes/" + k, token).DELETE());
            }
        }
    }

    private static JsonObject ensure(Api api, String body) {
        HttpResponse<String> r =
                api.send(
                        api.request("/api/v1/sandboxes", "none")
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body)));
        if (r.statusCode() != 200 && r.statusCode() != 201) {
            throw new IllegalStateException("ensure failed: " + r.statusCode() + " " + r.body());
        }
        return Api.object(r);
    }

    private static void bareExec(DockerClient client, String container)
            throws InterruptedException {
        String execId =
                client.execCreateCmd(container)
                        .withCmd("sh", "-c", "true")
                        .withAttachStdout(true)
                        .withAttachStderr(true)
                        .exec()
                        .getId();
        client.execStartCmd(execId).exec(new ResultCallback.Adapter<Frame>()).awaitCompletion();
        client.inspectExecCmd(execId).exec();
    }

    private static void row(StringBuilder out, String name, long[] ns) {
        out.append(
                String.format(
                        Locale.ROOT,
                        "| %s | %d | %.1f | %.1f |%n",
                        name,
                        ns.length,
                        median(ns) / 1e6,
                        p95(ns) / 1e6));
    }

    private static double median(long[] v) {
        long[] s = v.clone();
        Arrays.sort(s);
        int m = s.length / 2;
        return s.length % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2.0;
    }

    private static double p95(long[] v) {
        long[] s = v.clone();
        Arrays.sort(s);
        return s[Math.min(s.length - 1, (int) Math.ceil(s.length * 0.95) - 1)];
    }
}
