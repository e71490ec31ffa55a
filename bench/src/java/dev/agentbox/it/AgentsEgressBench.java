package dev.agentbox.it;

import dev.agentbox.testing.model.ScriptedModelServer;
import dev.agentbox.testing.model.Turn;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Time to the first text of a scripted model turn: the real Claude Code run by agentbox (POST /runs
 * streaming, claude-code harness, an egress sandbox of the agents image, the key brokered by the
 * gateway, TLS terminated there) against the same CLI run directly ({@code docker exec}) in a bare
 * container of the same image on the engine's default bridge, with the key in its environment —
 * both against the same {@link ModelHost} over HTTPS, interleaved per iteration. Run by
 * bench/agents-egress, which starts the server this talks to.
 *
 * <p>Usage: {@code AgentsEgressBench <base-url> <iterations>}
 */
public final class AgentsEgressBench {

    static final String KEY = "sk-bench-" + UUID.randomUUID();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    public static void main(String[] args) throws Exception {
        String base = args[0];
        int iterations = Integer.parseInt(args[1]);
        String bare = "agentbox-bench-agents-" + ProcessHandle.current().pid();
        try (ModelHost host = ModelHost.start(KEY)) {
            ScriptedModelServer model = host.model();
            String address = System.getProperty("agentbox.it.egress.model-address", "198.18.251.6");
            Path ca = Path.of("src/test/resources/egress-test-tls/ca.pem").toAbsolutePath();
            docker(
                    "run",
                    "-d",
                    "--name",
                    bare,
                    "--add-host",
                    ModelHost.NAME + ":" + address,
                    "-v",
                    ca + ":/tmp/test-ca.pem:ro",
                    "agentbox/sandbox:agents",
                    "sleep",
                    "infinity");
            String[] ensured = ensure(base);
            String sandboxKey = ensured[0];
            String sandboxContainer = ensured[1];
            List<Long> agentbox = new ArrayList<>();
            List<Long> direct = new ArrayList<>();
            List<Long> gateway = new ArrayList<>();
            try {
                for (int i = -2; i < iterations; i++) { // two warm-up rounds, not counted
                    model.enqueue(Turn.text("pong " + i));
                    long a = throughAgentbox(base, sandboxKey, i);
                    model.enqueue(Turn.text("pong " + i));
                    long d = directly(bare, List.of());
                    model.enqueue(Turn.text("pong " + i));
                    long g = directly(sandboxContainer, List.of("/dev/shm/agentbox"));
                    if (i >= 0) {
                        agentbox.add(a);
                        direct.add(d);
                        gateway.add(g);
                    }
                }
            } finally {
                docker("rm", "-f", bare);
                HTTP.send(
                        HttpRequest.newBuilder(URI.create(base + "/api/v1/sandboxes/" + sandboxKey))
                                .DELETE()
                                .build(),
                        HttpResponse.BodyHandlers.discarding());
            }
            System.out.printf(
                    "first text chunk, %d iterations: agentbox (egress, brokered key) median %.1f ms"
                            + " p95 %.1f ms; direct (bare container, key in env) median %.1f ms"
                            + " p95 %.1f ms; difference of medians %+.1f ms (target <= +50 ms);"
                            + " the CLI by docker exec in agentbox's egress sandbox (gateway and"
                            + " brokered key, no run) median %.1f ms p95 %.1f ms (%+.1f ms)%n",
                    iterations,
                    ms(median(agentbox)),
                    ms(p95(agentbox)),
                    ms(median(direct)),
                    ms(p95(direct)),
                    ms(median(agentbox) - median(direct)),
                    ms(median(gateway)),
                    ms(p95(gateway)),
                    ms(median(gateway) - median(direct)));
        }
    }

    /** The sandbox's key and container. */
    static String[] ensure(String base) throws Exception {
        HttpResponse<String> r =
                HTTP.send(
                        HttpRequest.newBuilder(URI.create(base + "/api/v1/sandboxes"))
                                .header("Content-Type", "application/json")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                ModelHost.claudeSandbox("bench-agents", KEY)))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 201) {
            throw new IllegalStateException("ensure: " + r.statusCode() + " " + r.body());
        }
        return new String[] {
            Api.parse(r.body()).getString("key"), Api.parse(r.body()).getString("providerSandboxId")
        };
    }

    /** POST /runs streaming: nanoseconds from the request to the first TEXT_MESSAGE_CONTENT. */
    private static long throughAgentbox(String base, String sandboxKey, int i) throws Exception {
        return run(base, sandboxKey, "bench-agents-" + UUID.randomUUID(), "\"harness\":\"claude-code\"", i)
                .nanos();
    }

    /**
     * A run's first text chunk: nanoseconds from the request to it, and the wall clock (epoch
     * microseconds) of the request and of the chunk.
     */
    record FirstText(long nanos, long requestMicros, long textMicros) {}

    /**
     * {@code POST /runs} with {@code Accept: text/event-stream}, {@code harness} (JSON members) in
     * the ensured sandbox {@code sandboxKey}; timed from the request to the first {@code
     * TEXT_MESSAGE_CONTENT}, read on to the run's end.
     */
    static FirstText run(String base, String sandboxKey, String runId, String harness, int i)
            throws Exception {
        String body =
                "{\"runId\":\""
                        + runId
                        + "\",\"threadId\":\"t-"
                        + runId
                        + "\","
                        + harness
                        + ",\"prompt\":\"ping "
                        + i
                        + "\",\"sandbox\":{\"key\":\""
                        + sandboxKey
                        + "\"}}";
        long requestMicros = epochMicros();
        long start = System.nanoTime();
        HttpResponse<Stream<String>> r =
                HTTP.send(
                        HttpRequest.newBuilder(URI.create(base + "/api/v1/runs"))
                                .header("Content-Type", "application/json")
                                .header("Accept", "text/event-stream")
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofLines());
        long first = -1;
        long textMicros = -1;
        try (Stream<String> lines = r.body()) {
            for (String line : (Iterable<String>) lines::iterator) {
                if (first < 0 && line.equals("event: TEXT_MESSAGE_CONTENT")) {
                    first = System.nanoTime() - start;
                    textMicros = epochMicros();
                }
                if (line.equals("event: RUN_FINISHED") || line.equals("event: RUN_ERROR")) {
                    break;
                }
            }
        }
        if (first < 0) {
            throw new IllegalStateException("run " + runId + " streamed no text");
        }
        return new FirstText(first, requestMicros, textMicros);
    }

    /** The wall clock in microseconds since the epoch (a container's clock is the host's). */
    static long epochMicros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }

    /**
     * The same CLI by docker exec: nanoseconds to its first assistant text line. With a secrets
     * folder, the key is the placeholder of agentbox's secrets file there (the gateway brokers it)
     * and the proxy and CA are the sandbox's own.
     */
    private static long directly(String container, List<String> secrets) throws Exception {
        String source =
                secrets.isEmpty()
                        ? "export ANTHROPIC_API_KEY="
                                + KEY
                                + " NODE_EXTRA_CA_CERTS=/tmp/test-ca.pem; "
                        : "for f in " + secrets.get(0) + "/*.env; do . \"$f\"; done; ";
        List<String> cmd =
                new ArrayList<>(
                        List.of(
                                "docker",
                                "exec",
                                "-i",
                                "-e",
                                "ANTHROPIC_BASE_URL=https://" + ModelHost.NAME,
                                "-e",
                                "DISABLE_TELEMETRY=1",
                                "-e",
                                "DISABLE_AUTOUPDATER=1",
                                "-e",
                                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
                                "-e",
                                "CLAUDE_CODE_MAX_RETRIES=0",
                                "-e",
                                "IS_SANDBOX=1",
                                container,
                                "sh",
                                "-c",
                                source
                                        + "exec claude -p --output-format stream-json --verbose"
                                        + " --permission-mode bypassPermissions"));
        long start = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try (OutputStream in = p.getOutputStream()) {
            in.write("ping".getBytes(StandardCharsets.UTF_8));
        }
        long first = -1;
        try (BufferedReader out =
                new BufferedReader(
                        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                if (first < 0
                        && line.contains("\"type\":\"assistant\"")
                        && line.contains("\"text\"")) {
                    first = System.nanoTime() - start;
                }
            }
        }
        p.waitFor();
        if (first < 0) {
            throw new IllegalStateException("the CLI in " + container + " printed no text");
        }
        return first;
    }

    static void docker(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("docker"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0 && !args[0].equals("rm")) {
            throw new IllegalStateException(String.join(" ", cmd) + ": " + out);
        }
    }

    static long median(List<Long> xs) {
        List<Long> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(s.size() / 2);
    }

    static long p95(List<Long> xs) {
        List<Long> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(Math.min(s.size() - 1, (int) Math.ceil(s.size() * 0.95) - 1));
    }

    static double ms(long nanos) {
        return nanos / 1e6;
    }

    private AgentsEgressBench() {}
}
