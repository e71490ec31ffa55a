package dev.agentbox.bench;

import dev.agentbox.it.DockerCli;
import dev.agentbox.it.OutsideHost;
import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.sandbox.docker.DockerSandboxProvider;
import dev.agentbox.sandbox.docker.DockerSettings;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import dev.agentbox.tool.ToolCallEvents;
import dev.agentbox.tool.ToolGate;
import dev.agentbox.tool.bridge.BridgeLimits;
import dev.agentbox.tool.bridge.Mailbox;
import dev.agentbox.tool.bridge.ToolBridge;
import dev.agentbox.tool.http.HttpTool;
import dev.agentbox.tool.http.HttpToolClient;
import dev.agentbox.tool.http.HttpToolSettings;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.InputStream;
import java.io.StringReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * What the tool bridge adds to one HTTP tool call, seen from inside the sandbox: the same tool (an
 * HTTP server in this JVM, one handler) called N times (a) through the run's tool bridge — an MCP
 * {@code tools/call} on the stdio of the relay ({@code agentbox-sandboxd mcp DIR}) as the agent's
 * CLI makes it, the relay's mailbox, the sandbox channel, the bridge and its HTTP client posting to
 * the tool at 127.0.0.1 — and straight over HTTP from the same sandbox ({@code network: bridge},
 * the tool's server at the engine network's gateway address), (b) on one kept-alive connection and
 * (c) on a new connection per call. Same arguments, same answer. The times are taken inside the
 * sandbox by a Perl client (bench/src/resources/bench/tool-round-trip.pl) with its monotonic clock,
 * one call of each kind per iteration in rotating order, so the drift of a shared machine hits all
 * three alike.
 *
 * <p>Usage: {@code bench/tool-bridge [calls=300] [warmup=30] [image=agentbox/sandbox:bookworm]}.
 * Needs the Docker engine; makes one sandbox and removes it.
 */
public final class ToolBridgeBench {

    private static final String TOKEN = "bench-token-" + UUID.randomUUID();
    private static final String SCRIPT = "/tmp/tool-round-trip.pl";
    private static final double TARGET_MS = 5.0;
    private static final int PORT = 8080;

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 300;
        int warm = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        String image = args.length > 2 ? args[2] : "agentbox/sandbox:bookworm";

        OutsideHost host = OutsideHost.start("agentbox/sandbox:busybox", "sleep 100000");
        Process server = null;
        DockerSandboxProvider provider =
                new DockerSandboxProvider(
                        DockerSettings.builder().image(image).build(),
                        new DaemonThreads("bench-tool-bridge"),
                        Clock.systemUTC());
        // a tenant of its own: its bridge network is this bench's alone, removed at the end
        String tenant = "bench-tool-bridge-" + UUID.randomUUID().toString().substring(0, 8);
        String network = null;
        SandboxHandle sandbox = null;
        ToolBridge bridge = null;
        Stages stages = new Stages();
        try {
            server = startToolServer(host);
            sandbox =
                    provider.create(
                            SandboxCreateInput.defaults()
                                    .withKey("bench-tool-bridge", tenant)
                                    .withPolicy(
                                            SandboxPolicy.defaults()
                                                    .withNetwork(SandboxPolicy.Network.BRIDGE)));
            network = DockerCli.ok("inspect", "-f", "{{.HostConfig.NetworkMode}}", sandbox.id());
            URI toolUrl = URI.create("http://" + host.address() + ":" + PORT + "/weather");
            HttpToolClient client =
                    new HttpToolClient(
                            HttpToolSettings.defaults().withAllowedHosts(Set.of(host.address())),
                            Clock.systemUTC());
            Mailbox mailbox = new Mailbox("/tmp/agentbox-runs/bench-run.mcp");
            ToolBridge.prepare(sandbox.fs(), mailbox);
            bridge =
                    ToolBridge.start(
                            sandbox.fs(),
                            mailbox,
                            new ToolBridge.RunTools(
                                    "bench-run",
                                    TOKEN,
                                    List.of(weather(toolUrl)),
                                    "bench-secret".getBytes(StandardCharsets.UTF_8)),
                            ToolGate.ALLOW_ALL,
                            client,
                            // every call counts against the run's bound: room for all of them
                            new BridgeLimits(8, 1024 * 1024, 16, 10 * (n + warm) + 100),
                            stages);
            try (InputStream script =
                    ToolBridgeBench.class.getResourceAsStream("/bench/tool-round-trip.pl")) {
                sandbox.fs().write(SCRIPT, script.readAllBytes());
            }
            ExecResult r =
                    sandbox.process()
                            .exec(
                                    String.join(
                                            " ",
                                            "perl",
                                            SCRIPT,
                                            mailbox.dir(),
                                            host.address(),
                                            Integer.toString(PORT),
                                            "/weather",
                                            Integer.toString(n),
                                            Integer.toString(warm)),
                                    ProcessOptions.defaults()
                                            .withEnv(Map.of("AGENTBOX_MCP_TOKEN", TOKEN))
                                            .withTimeout(Duration.ofMinutes(30)));
            if (r.exitCode() != 0) {
                throw new IllegalStateException("the client failed: " + r);
            }
            double[] clientAlone = clientAlone(client, toolUrl, n, warm);
            report(r.stdout(), n, warm, image, stages, clientAlone);
        } finally {
            if (bridge != null) {
                bridge.close();
            }
            if (sandbox != null) {
                sandbox.destroy();
            }
            provider.close();
            if (network != null) {
                DockerCli.run("network", "rm", network);
            }
            if (server != null) {
                server.destroyForcibly().waitFor();
            }
            host.close();
        }
    }

    /** The tool's server, in {@code host}'s network namespace, once it listens on {@link #PORT}. */
    private static Process startToolServer(OutsideHost host) throws Exception {
        Path script = Files.createTempFile("tool-server", ".mjs");
        try (InputStream in = ToolBridgeBench.class.getResourceAsStream("/bench/tool-server.mjs")) {
            Files.write(script, in.readAllBytes());
        }
        script.toFile().deleteOnExit();
        Process p = host.startInNetwork(List.of("node", script.toString(), Integer.toString(PORT)));
        String first =
                new java.io.BufferedReader(
                                new java.io.InputStreamReader(
                                        p.getInputStream(), StandardCharsets.UTF_8))
                        .readLine();
        if (!"tool listening".equals(first)) {
            p.destroyForcibly();
            throw new IllegalStateException("the tool's server did not start: " + first);
        }
        return p;
    }

    /**
     * The bridge's HTTP client alone, from this JVM, posting the same arguments to the same tool
     * (signed, a new connection per call, as the bridge posts): what of the tool stage is HTTP.
     */
    private static double[] clientAlone(HttpToolClient client, URI url, int n, int warm)
            throws Exception {
        byte[] args = "{\"city\":\"Paris\"}".getBytes(StandardCharsets.UTF_8);
        byte[] secret = "bench-secret".getBytes(StandardCharsets.UTF_8);
        double[] ms = new double[n];
        for (int i = -warm; i < n; i++) {
            long t0 = System.nanoTime();
            HttpToolClient.Answer a = client.post(url, secret, args, "bench:" + i);
            long t1 = System.nanoTime();
            if (a.status() != 200 || !a.body().contains("sunny")) {
                throw new IllegalStateException("the tool answered " + a);
            }
            if (i >= 0) {
                ms[i] = (t1 - t0) / 1e6;
            }
        }
        return ms;
    }

    private static HttpTool weather(URI url) {
        JsonObject schema =
                Json.createReader(
                                new StringReader(
                                        "{\"type\":\"object\",\"properties\":{\"city\":"
                                                + "{\"type\":\"string\"}},\"required\":[\"city\"]}"))
                        .readObject();
        return new HttpTool("weather", "the weather in a city", schema, url);
    }

    private static void report(
            String stdout, int n, int warm, String image, Stages stages, double[] clientAlone)
            throws Exception {
        Map<String, List<Double>> ms = new HashMap<>();
        List<long[]> bridgedSpans = new ArrayList<>();
        for (String line : stdout.split("\n")) {
            String[] f = line.trim().split(" ");
            if (f.length == 4) {
                ms.computeIfAbsent(f[0], k -> new ArrayList<>())
                        .add(Double.parseDouble(f[1]) / 1000.0);
                if (f[0].equals("b")) {
                    bridgedSpans.add(new long[] {Long.parseLong(f[2]), Long.parseLong(f[3])});
                }
            }
        }
        double[] b = values(ms, "b");
        double[] k = values(ms, "k");
        double[] c = values(ms, "c");
        if (b.length != n || k.length != n || c.length != n) {
            throw new IllegalStateException("expected " + n + " calls of each kind: " + stdout);
        }
        StringBuilder out = new StringBuilder();
        out.append(
                String.format(
                        Locale.ROOT,
                        "Image `%s`; %d calls of each kind after %d warm-up, interleaved;"
                                + " load average at the end: %s%n%n",
                        image,
                        n,
                        warm,
                        loadAverage()));
        out.append("| case | n | median ms | p95 ms |\n|---|---:|---:|---:|\n");
        row(
                out,
                "(a) through the tool bridge (relay stdio → mailbox → channel → bridge → HTTP)",
                b);
        row(out, "(b) direct HTTP, one kept-alive connection", k);
        row(out, "(c) direct HTTP, a new connection per call", c);
        double added = median(b) - median(k);
        out.append(
                String.format(
                        Locale.ROOT,
                        "%nbridge - direct (kept-alive) median = %+.2f ms, p95 %+.2f ms"
                                + " (target <= +%.0f ms): %s%n"
                                + "bridge - direct (new connection) median = %+.2f ms%n",
                        added,
                        p95(b) - p95(k),
                        TARGET_MS,
                        added <= TARGET_MS ? "met" : "NOT met",
                        median(b) - median(c)));
        stages.report(out, bridgedSpans);
        Stages.row(
                out,
                "(reference) the bridge's HTTP client alone: the same post from the JVM,"
                        + " after the calls above",
                clientAlone);
        System.out.print(out);
    }

    /**
     * When the bridge's HTTP tool handler began and ended each call (System.nanoTime, which is
     * CLOCK_MONOTONIC on Linux, the clock the client in the sandbox reads too), to split a bridged
     * call into its way in, the tool's part and its way out.
     */
    private static final class Stages implements ToolCallEvents {
        private final List<Long> started = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final List<Long> finished = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void started(String callKey, String tool, String argumentsJson) {
            started.add(System.nanoTime());
        }

        @Override
        public void finished(String callKey, String resultText, boolean error) {
            finished.add(System.nanoTime());
        }

        /** The last {@code spans.size()} calls are the measured ones (calls are sequential). */
        void report(StringBuilder out, List<long[]> spans) {
            int m = spans.size();
            if (started.size() < m || finished.size() < m) {
                out.append("(stages unavailable: the handler saw fewer calls than measured)\n");
                return;
            }
            int s0 = started.size() - m;
            int f0 = finished.size() - m;
            double[] in = new double[m];
            double[] tool = new double[m];
            double[] back = new double[m];
            for (int i = 0; i < m; i++) {
                in[i] = (started.get(s0 + i) - spans.get(i)[0]) / 1e6;
                tool[i] = (finished.get(f0 + i) - started.get(s0 + i)) / 1e6;
                back[i] = (spans.get(i)[1] - finished.get(f0 + i)) / 1e6;
            }
            out.append(
                    "\nA bridged call by stage (same clock inside and outside the sandbox):\n\n");
            out.append("| stage | median ms | p95 ms |\n|---|---:|---:|\n");
            row(
                    out,
                    "in: client write → relay → `.in` → channel follow → MCP session → handler",
                    in);
            row(out, "tool: gate + HTTP post to the tool + answer", tool);
            row(
                    out,
                    "out: result → `.out/N` written through the channel → inotify → relay → client",
                    back);
        }

        private static void row(StringBuilder out, String name, double[] v) {
            out.append(
                    String.format(Locale.ROOT, "| %s | %.2f | %.2f |%n", name, median(v), p95(v)));
        }
    }

    private static double[] values(Map<String, List<Double>> ms, String kind) {
        return ms.getOrDefault(kind, List.of()).stream().mapToDouble(Double::doubleValue).toArray();
    }

    private static void row(StringBuilder out, String name, double[] v) {
        out.append(
                String.format(
                        Locale.ROOT,
                        "| %s | %d | %.2f | %.2f |%n",
                        name,
                        v.length,
                        median(v),
                        p95(v)));
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (Exception e) {
            return "unknown";
        }
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
        return s[(int) Math.ceil(0.95 * s.length) - 1];
    }
}
