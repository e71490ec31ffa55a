package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.run.harness.Chunks;
import dev.agentbox.testing.PostgresPass;
import dev.agentbox.testing.model.ScriptedModelServer;
import dev.agentbox.testing.model.Turn;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL pass only: the real Claude Code, mid-run in an egress sandbox, outlives the server
 * that drives it. Server A (a runnable jar on the IT server's database, with the same pinned names
 * and upstream CA) starts the run; while the CLI runs its {@code Bash} tool, A is killed (SIGKILL).
 * The IT server takes the run over: it replays the real CLI's journal, aligns it with what A
 * stored, and drives on while the same CLI process asks the model for its next turn through the
 * gateway. The client sees every chunk once, and the model is asked exactly twice (EG-10).
 */
@PostgresPass
class AgentsTakeoverPostgresIT {

    private static final int PORT_A = 19890;
    private static final String KEY = "sk-takeover-" + UUID.randomUUID();

    @TempDir Path work;

    private static Map<String, String> serverA() {
        Map<String, String> env = new HashMap<>();
        env.put("AGENTBOX_DB_URL", ItDatabase.url());
        env.put("AGENTBOX_DB_USER", ItDatabase.user());
        env.put("AGENTBOX_DB_PASSWORD", ItDatabase.password());
        env.put("AGENTBOX_AUTH_TOKENS", "tenant-a=token-a,tenant-b=token-b,ops=token-ops");
        env.put("AGENTBOX_NODE_ID", "agents-a");
        env.put("AGENTBOX_EGRESS_RESOLVE", System.getProperty("agentbox.it.egress.resolve"));
        env.put(
                "AGENTBOX_EGRESS_UPSTREAM_CA",
                System.getProperty("agentbox.it.egress.upstream-ca"));
        env.put(
                "AGENTBOX_EGRESS_IMAGE",
                System.getProperty("agentbox.it.egress.image", "agentbox/egress:1"));
        return env;
    }

    @Test
    void aRealCliRunGoesOnThroughAnotherServerWhenItsServerIsKilled() throws Exception {
        try (ModelHost host = ModelHost.start(KEY)) {
            ScriptedModelServer model = host.model();
            model.enqueue(Turn.claudeBash("sleep 6; echo slept"), Turn.text("after the takeover"));
            String runId = "agents-takeover-" + UUID.randomUUID();
            JarServer a = JarServer.start(work, PORT_A, serverA(), "/health/ready");
            String sandboxKey;
            try {
                Runs onA = new Runs(a.api(), Api.TENANT_A);
                onA.start(
                        "{\"runId\":\""
                                + runId
                                + "\",\"threadId\":\"t-"
                                + runId
                                + "\",\"harness\":\"claude-code\",\"prompt\":\"sleep a little\","
                                + "\"sandbox\":"
                                + ModelHost.claudeSandbox("agents-takeover", KEY)
                                + "}");
                try (SseClient sse = onA.events(runId, null)) {
                    SseClient.Event e;
                    do {
                        e = sse.next(Duration.ofSeconds(90));
                    } while (e != null && !"TOOL_CALL_START".equals(e.name()));
                    assertThat(e).as("the CLI started its tool on A").isNotNull();
                }
            } finally {
                a.kill();
            }
            Runs onB = new Runs(Api.itServer(), Api.TENANT_A);
            List<SseClient.Event> events = onB.transcript(runId, null);
            assertThat(events.get(events.size() - 1).name())
                    .as(events.toString())
                    .isEqualTo("RUN_FINISHED");
            List<String> fingerprints =
                    events.stream().map(e -> Chunks.fingerprint(Api.parse(e.data()))).toList();
            assertThat(fingerprints).as("every chunk once").doesNotHaveDuplicates();
            List<Long> offsets = events.stream().map(e -> Long.parseLong(e.id())).toList();
            assertThat(offsets).isSorted().doesNotHaveDuplicates();
            assertThat(events.stream().filter(e -> e.name().equals("TOOL_CALL_START")).count())
                    .isEqualTo(1);
            assertThat(
                            events.stream()
                                    .filter(e -> e.name().equals("TEXT_MESSAGE_CONTENT"))
                                    .map(SseClient.Event::data))
                    .anyMatch(d -> d.contains("after the takeover"));
            assertThat(model.modelRequests()).as("the CLI was not started again").hasSize(2);
            assertThat(model.modelRequests())
                    .allSatisfy(r -> assertThat(r.header("x-api-key")).contains(KEY));
            sandboxKey = onB.get(runId).getString("sandboxKey");
            Sandboxes sandboxes = new Sandboxes(Api.itServer(), Api.TENANT_A);
            sandboxes.delete(sandboxKey);
            EgressWorld.removeGateways(EgressWorld.TENANT_A);
        }
    }
}
