package dev.agentbox.sandbox.bench;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.httpclient5.ApacheDockerHttpClient;
import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.sandbox.docker.DockerSandboxProvider;
import dev.agentbox.sandbox.docker.DockerSettings;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Exec latency of the Docker provider against bare docker-java and the docker CLI, and create+first
 * exec against {@code docker run -d} + {@code docker exec}. The cases of one iteration run back to
 * back (interleaved) so drift of the shared machine hits all alike.
 *
 * <p>Usage: {@code bench/providers [iterations=300] [createIterations=20] [image]}.
 */
public final class ProviderBench {

    private static final String HOST = "unix:///var/run/docker.sock";

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 300;
        int nCreate = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        String image = args.length > 2 ? args[2] : "agentbox/sandbox:bookworm";
        DockerSandboxProvider provider =
                new DockerSandboxProvider(
                        DockerSettings.builder().image(image).build(),
                        new DaemonThreads("bench"),
                        Clock.systemUTC());
        DockerClientConfig cfg =
                DefaultDockerClientConfig.createDefaultConfigBuilder().withDockerHost(HOST).build();
        DockerClient bare =
                DockerClientImpl.getInstance(
                        cfg,
                        new ApacheDockerHttpClient.Builder()
                                .dockerHost(cfg.getDockerHost())
                                .maxConnections(100)
                                .connectionTimeout(Duration.ofSeconds(5))
                                .build());
        SandboxHandle sb = provider.create(SandboxCreateInput.defaults().withKey("bench", "bench"));
        List<String> leftovers = new ArrayList<>();
        try {
            String id = sb.id();
            int warm = Math.max(20, n / 10);
            long[] a = new long[n];
            long[] b = new long[n];
            long[] c = new long[n];
            for (int i = -warm; i < n; i++) {
                long t0 = System.nanoTime();
                ExecResult r = sb.process().exec("true");
                long t1 = System.nanoTime();
                int code = bareExec(bare, id);
                long t2 = System.nanoTime();
                int cli = run("docker", "exec", id, "sh", "-c", "true");
                long t3 = System.nanoTime();
                if (r.exitCode() != 0 || code != 0 || cli != 0) {
                    throw new IllegalStateException("exec failed: " + r + " " + code + " " + cli);
                }
                if (i >= 0) {
                    a[i] = t1 - t0;
                    b[i] = t2 - t1;
                    c[i] = t3 - t2;
                }
            }
            long[] d1 = new long[nCreate];
            long[] d2 = new long[nCreate];
            for (int i = -2; i < nCreate; i++) {
                long t0 = System.nanoTime();
                SandboxHandle fresh =
                        provider.create(SandboxCreateInput.defaults().withKey("bench", "bench"));
                leftovers.add(fresh.id());
                fresh.process().exec("true");
                long t1 = System.nanoTime();
                String cid =
                        output(
                                        "docker",
                                        "run",
                                        "-d",
                                        "--init",
                                        "--network",
                                        "none",
                                        "--label",
                                        "dev.agentbox.managed=true",
                                        "--label",
                                        "dev.agentbox.key=bench",
                                        image,
                                        "sleep",
                                        "2147483647")
                                .strip();
                leftovers.add(cid);
                run("docker", "exec", cid, "sh", "-c", "true");
                long t2 = System.nanoTime();
                provider.destroy(fresh.id());
                run("docker", "rm", "-f", cid);
                if (i >= 0) {
                    d1[i] = t1 - t0;
                    d2[i] = t2 - t1;
                }
            }
            double bareMedian = median(b);
            StringBuilder out = new StringBuilder();
            out.append(
                    String.format(
                            Locale.ROOT,
                            "Image `%s`; exec cases: %d iterations after %d warm-up, interleaved; "
                                    + "create cases: %d iterations after 2 warm-up.%n%n",
                            image,
                            n,
                            warm,
                            nCreate));
            out.append(
                    "| case | n | median ms | p95 ms | median vs bare docker-java |\n|---|---:|---:|---:|---:|\n");
            row(out, "(a) provider `exec(\"true\")`", a, bareMedian);
            row(
                    out,
                    "(b) bare docker-java exec (create+start+wait+inspect of `sh -c true`)",
                    b,
                    bareMedian);
            row(out, "(c) CLI `docker exec <id> sh -c true`", c, bareMedian);
            out.append(
                    "\n| case | n | median ms | p95 ms | median vs CLI |\n|---|---:|---:|---:|---:|\n");
            row(out, "(d) provider `create` + first exec", d1, median(d2));
            row(
                    out,
                    "(d) CLI `docker run -d --init --network none` + `docker exec`",
                    d2,
                    median(d2));
            out.append(
                    String.format(
                            Locale.ROOT,
                            "%nprovider/bare = %.3f (target <= 1.2); provider/CLI = %.3f (target < 1)%n",
                            median(a) / bareMedian,
                            median(a) / median(c)));
            System.out.print(out);
        } finally {
            sb.destroy();
            for (String l : leftovers) {
                provider.destroy(l);
            }
            provider.close();
            bare.close();
        }
    }

    private static int bareExec(DockerClient client, String container) throws InterruptedException {
        String execId =
                client.execCreateCmd(container)
                        .withCmd("sh", "-c", "true")
                        .withAttachStdout(true)
                        .withAttachStderr(true)
                        .exec()
                        .getId();
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        client.execStartCmd(execId)
                .exec(
                        new ResultCallback.Adapter<Frame>() {
                            @Override
                            public void onNext(Frame f) {
                                sink.writeBytes(f.getPayload());
                            }
                        })
                .awaitCompletion();
        return client.inspectExecCmd(execId).exec().getExitCodeLong().intValue();
    }

    private static void row(StringBuilder out, String name, long[] ns, double base) {
        out.append(
                String.format(
                        Locale.ROOT,
                        "| %s | %d | %.1f | %.1f | %.2f |%n",
                        name,
                        ns.length,
                        median(ns) / 1e6,
                        p95(ns) / 1e6,
                        median(ns) / base));
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
        return s[(int) Math.ceil(0.95 * s.length) - 1];
    }

    private static int run(String... cmd) throws IOException, InterruptedException {
        Process p =
                new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start();
        return p.waitFor();
    }

    private static String output(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try (InputStream in = p.getInputStream()) {
            String s = new String(in.readAllBytes());
            if (p.waitFor() != 0) {
                throw new IllegalStateException(String.join(" ", cmd) + " failed: " + s);
            }
            return s;
        }
    }
}
