package dev.agentbox.it;

import dev.agentbox.it.AgentsEgressBench.FirstText;
import dev.agentbox.sandbox.spi.JournalNames;
import dev.agentbox.testing.model.ScriptedModelServer;
import dev.agentbox.testing.model.Turn;
import jakarta.json.JsonObject;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Time to the first text chunk of a scripted model turn of {@code claude-code-acp} (the agents
 * image's ACP adapter, driving its native {@code claude}): through agentbox ({@code harness: acp},
 * {@code acp: {agent: claude}}, POST /runs streaming, an already ensured egress sandbox with the key
 * brokered), against the same adapter started by {@code docker exec} in an already running bare
 * container of the same image and driven over its stdio by the minimal ACP client here (the same
 * four requests agentbox sends: initialize, session/new, session/set_mode bypassPermissions,
 * session/prompt), and against today's {@code claude-code} harness through agentbox — all on the
 * same {@link ModelHost} over HTTPS, interleaved per iteration (the order rotates). Neither path
 * includes a container's start; both include the agent process's start and the ACP handshake.
 *
 * <p>Then a profile: a few more iterations of the two ACP paths with a watcher in the sandbox (a
 * node process on inotify) that stamps when each of agentbox's inbox files was written (its mtime)
 * and when each line reached the run's journal, so the agentbox path splits into the run's start,
 * the agent's answers, and the client's reaction to each answer; the direct client stamps the same
 * points itself. Run by bench/acp, which starts the server this talks to.
 *
 * <p>Usage: {@code AcpBench <base-url> <iterations> [profile-iterations]}
 */
public final class AcpBench {

    private static final String KEY = AgentsEgressBench.KEY;
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String ACP = "\"harness\":\"acp\",\"acp\":{\"agent\":\"claude\"}";
    private static final String CLAUDE_CODE = "\"harness\":\"claude-code\"";

    /** The stages of one ACP turn, in microseconds from its start (request or process start). */
    private static final List<String> STAGES =
            List.of(
                    "q1", // initialize written (agentbox: q-000001's mtime; direct: at once)
                    "j", // the agent's process started (agentbox: its journal created; direct: its
                    // shell's pid file written, in the container)
                    "r1", // initialize answered (the line in the journal / on stdout)
                    "q2", // session/new written
                    "r2", // session/new answered
                    "q3", // session/set_mode written
                    "r3", // session/set_mode answered
                    "q4", // session/prompt written
                    "t", // first agent_message_chunk with text (journal / stdout)
                    "sse"); // agentbox: the first TEXT_MESSAGE_CONTENT at the SSE client

    public static void main(String[] args) throws Exception {
        String base = args[0];
        int iterations = Integer.parseInt(args[1]);
        int profiled = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        String bare = "agentbox-bench-acp-" + ProcessHandle.current().pid();
        try (ModelHost host = ModelHost.start(KEY)) {
            ScriptedModelServer model = host.model();
            String address = System.getProperty("agentbox.it.egress.model-address", "198.18.251.6");
            Path ca = Path.of("src/test/resources/egress-test-tls/ca.pem").toAbsolutePath();
            AgentsEgressBench.docker(
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
            AgentsEgressBench.docker("exec", bare, "mkdir", "-p", "/workspace");
            String[] ensured = AgentsEgressBench.ensure(base);
            String sandboxKey = ensured[0];
            String sandboxContainer = ensured[1];
            List<Long> acp = new ArrayList<>();
            List<Long> direct = new ArrayList<>();
            List<Long> claudeCode = new ArrayList<>();
            List<Map<String, Long>> acpStages = new ArrayList<>();
            List<Map<String, Long>> directStages = new ArrayList<>();
            try {
                for (int i = -2; i < iterations; i++) { // two warm-up rounds, not counted
                    long[] t = new long[3];
                    for (int k = 0; k < 3; k++) {
                        int c = Math.floorMod(i + k, 3); // the order rotates
                        model.enqueue(Turn.text("pong " + i));
                        t[c] =
                                switch (c) {
                                    case 0 -> acpRun(base, sandboxKey, i).nanos();
                                    case 1 -> directly(bare, i, null);
                                    default ->
                                            AgentsEgressBench.run(
                                                            base,
                                                            sandboxKey,
                                                            "bench-cc-" + UUID.randomUUID(),
                                                            CLAUDE_CODE,
                                                            i)
                                                    .nanos();
                                };
                    }
                    if (i >= 0) {
                        acp.add(t[0]);
                        direct.add(t[1]);
                        claudeCode.add(t[2]);
                    }
                    System.err.printf(
                            "iteration %d: acp %.0f ms, direct %.0f ms, claude-code %.0f ms%n",
                            i, ms(t[0]), ms(t[1]), ms(t[2]));
                }
                if (profiled > 0) {
                    profile(base, sandboxKey, sandboxContainer, bare, model, profiled, acpStages,
                            directStages);
                }
            } finally {
                AgentsEgressBench.docker("rm", "-f", bare);
                HTTP.send(
                        HttpRequest.newBuilder(URI.create(base + "/api/v1/sandboxes/" + sandboxKey))
                                .DELETE()
                                .build(),
                        HttpResponse.BodyHandlers.discarding());
            }
            System.out.printf(
                    "%nfirst text chunk of a scripted turn, %d iterations after 2 warm-up rounds,"
                            + " interleaved:%n",
                    iterations);
            System.out.println("| case | n | median | p90 | min | median vs direct |");
            System.out.println("|---|---:|---:|---:|---:|---:|");
            row("direct: claude-code-acp by docker exec in a bare container", direct, direct);
            row("agentbox acp: POST /runs → first TEXT_MESSAGE_CONTENT", acp, direct);
            row("agentbox claude-code: POST /runs → first TEXT_MESSAGE_CONTENT", claudeCode, direct);
            System.out.printf(
                    "acp through agentbox vs direct: %+.1f ms median (target <= +50 ms): %s%n",
                    ms(AgentsEgressBench.median(acp) - AgentsEgressBench.median(direct)),
                    AgentsEgressBench.median(acp) - AgentsEgressBench.median(direct) <= 50_000_000L
                            ? "met"
                            : "NOT met");
            if (!acpStages.isEmpty()) {
                stages(acpStages, directStages);
            }
        }
    }

    private static FirstText acpRun(String base, String sandboxKey, int i) throws Exception {
        return AgentsEgressBench.run(base, sandboxKey, acpRunId(), ACP, i);
    }

    private static String acpRunId() {
        return "bench-acp-" + UUID.randomUUID();
    }

    // ---- the direct path: a minimal ACP client on the adapter's stdio ----

    /** A line read from the agent, stamped when it was read (System.nanoTime). */
    private record Line(long nanos, JsonObject message) {}

    /**
     * {@code claude-code-acp} by docker exec in {@code container}, with the environment agentbox's
     * sandbox gives it (the key in it here, the test CA trusted); nanoseconds from the process's
     * start to the first {@code agent_message_chunk} with text. The initialize request is written at
     * once (the agent reads it when it is ready), each next request as soon as the answer to the
     * previous one is read. With {@code stages}, the stages' times (microseconds from the start).
     */
    static long directly(String container, int i, Map<String, Long> stages) throws Exception {
        String pidFile = "/tmp/acp-" + UUID.randomUUID() + ".pid";
        List<String> cmd =
                List.of(
                        "docker",
                        "exec",
                        "-i",
                        "-w",
                        "/workspace",
                        "-e",
                        "ANTHROPIC_BASE_URL=https://" + ModelHost.NAME,
                        "-e",
                        "ANTHROPIC_API_KEY=" + KEY,
                        "-e",
                        "NODE_EXTRA_CA_CERTS=/tmp/test-ca.pem",
                        "-e",
                        "DISABLE_TELEMETRY=1",
                        "-e",
                        "DISABLE_AUTOUPDATER=1",
                        "-e",
                        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
                        "-e",
                        "CLAUDE_CODE_MAX_RETRIES=0",
                        container,
                        "sh",
                        "-c",
                        "echo $$ > " + pidFile + "; IS_SANDBOX=1 exec claude-code-acp");
        long startMicros = AgentsEgressBench.epochMicros();
        long start = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        BlockingQueue<Line> lines = new LinkedBlockingQueue<>();
        Thread reader =
                new Thread(
                        () -> {
                            try (BufferedReader out =
                                    new BufferedReader(
                                            new InputStreamReader(
                                                    p.getInputStream(), StandardCharsets.UTF_8))) {
                                String line;
                                while ((line = out.readLine()) != null) {
                                    long now = System.nanoTime();
                                    if (line.startsWith("{")) {
                                        lines.add(new Line(now, Api.parse(line)));
                                    }
                                }
                            } catch (Exception e) {
                                // the process ended
                            }
                        });
        reader.setDaemon(true);
        reader.start();
        OutputStream in = p.getOutputStream();
        long first = -1;
        try {
            send(in, stages, "q1", start, 1, "initialize",
                    "{\"protocolVersion\":1,\"clientCapabilities\":{\"fs\":{\"readTextFile\":false,"
                            + "\"writeTextFile\":false},\"terminal\":false},"
                            + "\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}");
            await(lines, 1, stages, "r1", start);
            send(in, stages, "q2", start, 2, "session/new",
                    "{\"cwd\":\"/workspace\",\"mcpServers\":[]}");
            JsonObject opened = await(lines, 2, stages, "r2", start).message();
            String session = opened.getJsonObject("result").getString("sessionId");
            send(in, stages, "q3", start, 3, "session/set_mode",
                    "{\"sessionId\":\"" + session + "\",\"modeId\":\"bypassPermissions\"}");
            await(lines, 3, stages, "r3", start);
            send(in, stages, "q4", start, 4, "session/prompt",
                    "{\"sessionId\":\"" + session + "\",\"prompt\":[{\"type\":\"text\","
                            + "\"text\":\"ping " + i + "\"}]}");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (true) {
                Line l = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                if (l == null) {
                    throw new IllegalStateException("no answer to session/prompt");
                }
                if (first < 0 && textChunk(l.message())) {
                    first = l.nanos() - start;
                    if (stages != null) {
                        stages.put("t", first / 1000);
                    }
                }
                if (isAnswer(l.message(), 4)) {
                    if (l.message().containsKey("error")) {
                        throw new IllegalStateException("session/prompt: " + l.message());
                    }
                    break;
                }
            }
        } finally {
            in.close();
            // claude-code-acp stays after EOF once a session is open: SIGTERM, as agentbox does
            if (stages != null) { // the pid file's mtime: the agent's process start
                Process st =
                        new ProcessBuilder("docker", "exec", container, "stat", "-c", "%.6Y", pidFile)
                                .start();
                String t = new String(st.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                st.waitFor();
                stages.put(
                        "j",
                        Math.round(Double.parseDouble(t.strip()) * 1e6) - startMicros);
            }
            AgentsEgressBench.docker(
                    "exec", container, "sh", "-c", "kill -TERM $(cat " + pidFile + "); rm -f " + pidFile);
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
        if (first < 0) {
            throw new IllegalStateException("claude-code-acp in " + container + " sent no text");
        }
        return first;
    }

    private static void send(
            OutputStream in,
            Map<String, Long> stages,
            String stage,
            long start,
            int id,
            String method,
            String params)
            throws Exception {
        String line =
                "{\"jsonrpc\":\"2.0\",\"id\":"
                        + id
                        + ",\"method\":\""
                        + method
                        + "\",\"params\":"
                        + params
                        + "}\n";
        in.write(line.getBytes(StandardCharsets.UTF_8));
        in.flush();
        if (stages != null) {
            stages.put(stage, (System.nanoTime() - start) / 1000);
        }
    }

    private static Line await(
            BlockingQueue<Line> lines, int id, Map<String, Long> stages, String stage, long start)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            Line l = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (l == null) {
                throw new IllegalStateException("no answer to request " + id);
            }
            if (isAnswer(l.message(), id)) {
                if (l.message().containsKey("error")) {
                    throw new IllegalStateException("request " + id + ": " + l.message());
                }
                if (stages != null) {
                    stages.put(stage, (l.nanos() - start) / 1000);
                }
                return l;
            }
        }
    }

    private static boolean isAnswer(JsonObject m, int id) {
        return !m.containsKey("method")
                && m.containsKey("id")
                && m.get("id").getValueType() == jakarta.json.JsonValue.ValueType.NUMBER
                && m.getInt("id") == id;
    }

    private static boolean textChunk(JsonObject m) {
        if (!"session/update".equals(m.getString("method", ""))) {
            return false;
        }
        JsonObject u = m.getJsonObject("params").getJsonObject("update");
        return "agent_message_chunk".equals(u.getString("sessionUpdate", ""))
                && u.get("content") instanceof JsonObject c
                && !c.getString("text", "").isEmpty();
    }

    // ---- the profile ----

    /**
     * A node process in the sandbox, on inotify: for each run's journal under {@code dir}, each
     * line as it arrives ({@code L <enc> <epoch µs> <kind>}: {@code r<id>} an answer, {@code t}
     * the first agent_message_chunk with text, {@code o} anything else), and at each journal event
     * the mtimes of the run's inbox files not reported yet ({@code F <enc> <name> <epoch µs>}).
     */
    private static final String WATCHER =
            """
            const fs = require('fs'), path = require('path');
            const dir = process.argv[1];
            const now = () => Math.round((performance.timeOrigin + performance.now()) * 1000);
            const off = new Map(), rest = new Map(), seen = new Set(), texted = new Set();
            const out = s => process.stdout.write(s + '\\n');
            function inbox(base) {
              const d = path.join(dir, base + '.mcp', 'acp');
              let names; try { names = fs.readdirSync(d); } catch (e) { return; }
              for (const n of names) {
                if (n.startsWith('.') || seen.has(base + '/' + n)) continue;
                try {
                  const st = fs.statSync(path.join(d, n), { bigint: true });
                  seen.add(base + '/' + n);
                  out('F ' + base + ' ' + n + ' ' + (st.mtimeNs / 1000n));
                } catch (e) {}
              }
            }
            function journal(name) {
              const t = now(), base = name.slice(0, -'.ndjson'.length);
              let fd; try { fd = fs.openSync(path.join(dir, name), 'r'); } catch (e) { return; }
              try {
                const size = fs.fstatSync(fd).size, o = off.get(name) || 0;
                if (size > o) {
                  const b = Buffer.alloc(size - o);
                  fs.readSync(fd, b, 0, b.length, o);
                  off.set(name, size);
                  const parts = ((rest.get(name) || '') + b.toString('utf8')).split('\\n');
                  rest.set(name, parts.pop());
                  for (const line of parts) {
                    let kind = 'o';
                    try {
                      const m = JSON.parse(line);
                      if (m.id !== undefined && m.method === undefined) kind = 'r' + m.id;
                      else if (m.method === 'session/update' && !texted.has(base)
                          && m.params.update.sessionUpdate === 'agent_message_chunk'
                          && m.params.update.content && m.params.update.content.text) {
                        kind = 't'; texted.add(base);
                      }
                    } catch (e) {}
                    out('L ' + base + ' ' + t + ' ' + kind);
                  }
                }
              } finally { fs.closeSync(fd); }
              inbox(base);
            }
            const created = new Set();
            fs.watch(dir, (ev, name) => {
              if (!name || !name.endsWith('.ndjson')) return;
              if (!created.has(name)) { created.add(name); out('C ' + name.slice(0, -7) + ' ' + now() + ' c'); }
              journal(name);
            });
            process.stdin.on('end', () => process.exit(0));
            process.stdin.resume();
            out('ready');
            """;

    private static void profile(
            String base,
            String sandboxKey,
            String sandboxContainer,
            String bare,
            ScriptedModelServer model,
            int n,
            List<Map<String, Long>> acpStages,
            List<Map<String, Long>> directStages)
            throws Exception {
        Process watcher =
                new ProcessBuilder(
                                "docker",
                                "exec",
                                "-i",
                                sandboxContainer,
                                "node",
                                "-e",
                                WATCHER,
                                JournalNames.DEFAULT_DIR)
                        .redirectError(ProcessBuilder.Redirect.INHERIT)
                        .start();
        ConcurrentLinkedQueue<String[]> events = new ConcurrentLinkedQueue<>();
        BufferedReader wout =
                new BufferedReader(
                        new InputStreamReader(watcher.getInputStream(), StandardCharsets.UTF_8));
        if (!"ready".equals(wout.readLine())) {
            throw new IllegalStateException("the watcher did not start");
        }
        Thread reader =
                new Thread(
                        () -> {
                            try {
                                String line;
                                while ((line = wout.readLine()) != null) {
                                    events.add(line.split(" "));
                                }
                            } catch (Exception e) {
                                // ended
                            }
                        });
        reader.setDaemon(true);
        reader.start();
        try {
            for (int i = 0; i < n; i++) {
                model.enqueue(Turn.text("pong p" + i));
                String runId = acpRunId();
                FirstText f = AgentsEgressBench.run(base, sandboxKey, runId, ACP, 1000 + i);
                Thread.sleep(300); // the watcher's last lines
                String enc = JournalNames.encode(runId);
                Map<String, Long> s = new LinkedHashMap<>();
                for (String[] e : events) {
                    if (!e[1].equals(enc)) {
                        continue;
                    }
                    if (e[0].equals("F") && e[2].matches("q-00000[1-4]")) {
                        s.put("q" + e[2].charAt(7), Long.parseLong(e[3]) - f.requestMicros());
                    } else if (e[0].equals("L") && e[3].matches("r[1-3]")) {
                        s.putIfAbsent(e[3], Long.parseLong(e[2]) - f.requestMicros());
                    } else if (e[0].equals("C")) {
                        s.put("j", Long.parseLong(e[2]) - f.requestMicros());
                    } else if (e[0].equals("L") && e[3].equals("t")) {
                        s.put("t", Long.parseLong(e[2]) - f.requestMicros());
                    }
                }
                s.put("sse", f.textMicros() - f.requestMicros());
                acpStages.add(s);
                model.enqueue(Turn.text("pong p" + i));
                Map<String, Long> d = new LinkedHashMap<>();
                directly(bare, 1000 + i, d);
                d.put("sse", d.get("t"));
                directStages.add(d);
                System.err.println("profile " + i + ": agentbox " + s + "; direct " + d);
            }
        } finally {
            watcher.getOutputStream().close(); // the watcher ends with its stdin
            if (!watcher.waitFor(10, TimeUnit.SECONDS)) {
                watcher.destroyForcibly();
            }
        }
    }

    private static void stages(List<Map<String, Long>> acp, List<Map<String, Long>> direct) {
        System.out.printf(
                "%nprofile, %d iterations of each ACP path (medians of each point, ms from the"
                        + " request / the process start; the step is the difference of medians):%n",
                acp.size());
        System.out.println("| point | agentbox acp | step | direct | step |");
        System.out.println("|---|---:|---:|---:|---:|");
        double pa = 0, pd = 0;
        for (String k : STAGES) {
            double a = medianOf(acp, k), d = medianOf(direct, k);
            System.out.printf(
                    "| %s | %.1f | %+.1f | %.1f | %+.1f |%n", k, a, a - pa, d, d - pd);
            pa = a;
            pd = d;
        }
        System.out.printf(
                "from the agent process's start (j) to the first text at the client (sse):"
                        + " agentbox %s; direct %s%n",
                summary(between(acp, "j", "sse")),
                summary(between(direct, "j", "sse")));
        System.out.printf(
                "from session/prompt written (q4) to the first text at the client (sse):"
                        + " agentbox %s; direct %s%n",
                summary(between(acp, "q4", "sse")),
                summary(between(direct, "q4", "sse")));
        System.out.println("per-iteration steps (medians, ms):");
        String prev = null;
        for (String k : STAGES) {
            if (prev != null) {
                List<Long> steps = new ArrayList<>();
                for (Map<String, Long> m : acp) {
                    if (m.containsKey(k) && m.containsKey(prev)) {
                        steps.add(m.get(k) - m.get(prev));
                    }
                }
                List<Long> dsteps = new ArrayList<>();
                for (Map<String, Long> m : direct) {
                    if (m.containsKey(k) && m.containsKey(prev)) {
                        dsteps.add(m.get(k) - m.get(prev));
                    }
                }
                System.out.printf(
                        "  %s -> %s: agentbox %s, direct %s%n",
                        prev, k, summary(steps), summary(dsteps));
            }
            prev = k;
        }
    }

    private static List<Long> between(List<Map<String, Long>> runs, String from, String to) {
        List<Long> xs = new ArrayList<>();
        for (Map<String, Long> m : runs) {
            if (m.containsKey(from) && m.containsKey(to)) {
                xs.add(m.get(to) - m.get(from));
            }
        }
        return xs;
    }

    private static String summary(List<Long> micros) {
        if (micros.isEmpty()) {
            return "-";
        }
        List<Long> s = new ArrayList<>(micros);
        Collections.sort(s);
        return String.format(
                "median %.1f (min %.1f, max %.1f)",
                s.get(s.size() / 2) / 1000.0, s.get(0) / 1000.0, s.get(s.size() - 1) / 1000.0);
    }

    private static double medianOf(List<Map<String, Long>> runs, String key) {
        List<Long> xs = new ArrayList<>();
        for (Map<String, Long> m : runs) {
            if (m.containsKey(key)) {
                xs.add(m.get(key));
            }
        }
        if (xs.isEmpty()) {
            return Double.NaN;
        }
        Collections.sort(xs);
        return xs.get(xs.size() / 2) / 1000.0;
    }

    private static void row(String name, List<Long> xs, List<Long> direct) {
        System.out.printf(
                "| %s | %d | %.1f ms | %.1f ms | %.1f ms | %s |%n",
                name,
                xs.size(),
                ms(AgentsEgressBench.median(xs)),
                ms(p90(xs)),
                ms(Collections.min(xs)),
                xs == direct
                        ? ""
                        : String.format(
                                "%+.1f ms",
                                ms(AgentsEgressBench.median(xs) - AgentsEgressBench.median(direct))));
    }

    private static long p90(List<Long> xs) {
        List<Long> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(Math.min(s.size() - 1, (int) Math.ceil(s.size() * 0.9) - 1));
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    private AcpBench() {}
}
