package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.testing.PostgresPass;
import dev.agentbox.testing.model.ScriptedModelServer;
import dev.agentbox.testing.model.Turn;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL pass only (AG-15 across servers): a client tool's call, waiting for the AG-UI client's
 * answer, survives the SIGKILL of the server that drives the run. The real Claude Code, through
 * server A (a runnable jar on the IT server's database), calls the client tool {@code pick_color};
 * A's AG-UI run ends with the interrupt outcome and A is killed while the CLI waits in the sandbox.
 * The client's next input, with the tool's result as its {@code resume}, goes to the IT server: it
 * answers the stored interrupt, takes the run over, and streams the continuation of the same CLI
 * process (the model is asked twice in all, the second time with the client's result).
 */
@PostgresPass
class ClientToolTakeoverPostgresIT {

    private static final int PORT_A = 19483;
    private static final String KEY = "sk-client-tool-takeover-" + UUID.randomUUID();

    @TempDir Path work;

    @Test
    void aClientToolCallOutlivesItsServerAndTheClientsAnswerThroughAnotherServerGoesToTheSameCli()
            throws Exception {
        Api b = Api.itServer();
        String agentId = "client-tool-takeover-" + UUID.randomUUID().toString().substring(0, 8);
        String threadId = "t-" + UUID.randomUUID();
        String runId = "r-" + UUID.randomUUID();
        Sandboxes sandboxes = new Sandboxes(b, Api.TENANT_A);
        boolean gatewayBefore =
                DockerCli.run("inspect", EgressWorld.gateway(EgressWorld.TENANT_A)).exitCode() == 0;
        try (ModelHost host = ModelHost.start(KEY)) {
            ScriptedModelServer model = host.model();
            model.enqueue(
                    new Turn.ToolCall(
                            "mcp__agentbox__pick_color",
                            Json.createObjectBuilder().add("hint", "warm").build()),
                    Turn.text("you picked teal after the takeover"));
            AgUiInterruptsIT.define(b, agentId, KEY, "");
            JsonObject interrupt;
            JarServer a =
                    JarServer.start(
                            work,
                            PORT_A,
                            ApprovalTakeoverPostgresIT.serverA("client-tool-a"),
                            "/health/ready");
            try {
                List<AgentsIT.Event> first = post(a.api(), agentId, input(threadId, runId, null));
                AgentsIT.Event end = first.get(first.size() - 1);
                assertThat(end.name()).as("%s", first).isEqualTo("RUN_FINISHED");
                JsonObject outcome = end.data().getJsonObject("outcome");
                assertThat(outcome.getString("type")).isEqualTo("interrupt");
                interrupt = outcome.getJsonArray("interrupts").getJsonObject(0);
                assertThat(interrupt.getString("reason")).isEqualTo("client_tool_input");
            } finally {
                a.kill();
            }
            assertThat(model.modelRequests()).as("the CLI waits for the tool's result").hasSize(1);

            List<AgentsIT.Event> continued =
                    post(
                            b,
                            agentId,
                            input(
                                    threadId,
                                    runId + "-2",
                                    Json.createArrayBuilder()
                                            .add(
                                                    Json.createObjectBuilder()
                                                            .add(
                                                                    "interruptId",
                                                                    interrupt.getString("id"))
                                                            .add("status", "resolved")
                                                            .add(
                                                                    "payload",
                                                                    Json.createObjectBuilder()
                                                                            .add("result", "teal")))
                                            .build()));
            AgentsIT.Event last = continued.get(continued.size() - 1);
            assertThat(last.name()).as("%s", continued).isEqualTo("RUN_FINISHED");
            assertThat(last.data())
                    .as("the continuation completes: no interrupt outcome")
                    .doesNotContainKey("outcome");
            assertThat(AgentsIT.Event.text(continued))
                    .contains("you picked teal after the takeover");
            List<ScriptedModelServer.RecordedRequest> asked = model.modelRequests();
            assertThat(asked).as("the same CLI went on: it was not started again").hasSize(2);
            assertThat(asked.get(1).body())
                    .as("the model got the client's result")
                    .contains("teal");

            JsonObject run =
                    Api.json(b.get("/api/v1/runs?threadId=" + threadId, Api.TENANT_A))
                            .asJsonArray()
                            .getJsonObject(0);
            assertThat(run.getString("status")).isEqualTo("completed");
            assertThat(run.getInt("driverEpoch")).as("taken over once").isEqualTo(2);
            assertThat(run).doesNotContainKey("interrupts");
        } finally {
            for (JsonObject run :
                    Api.json(b.get("/api/v1/runs?threadId=" + threadId, Api.TENANT_A))
                            .asJsonArray()
                            .getValuesAs(JsonObject.class)) {
                if (run.get("sandboxKey") instanceof JsonString key) {
                    sandboxes.delete(key.getString());
                }
            }
            b.send(b.request("/api/v1/agents/" + agentId, Api.TENANT_A).DELETE());
            if (!gatewayBefore) {
                EgressWorld.removeGateways(EgressWorld.TENANT_A);
            }
        }
    }

    /** An AG-UI input of the thread offering the client tool, with the key brokered per input. */
    private static String input(String threadId, String runId, JsonValue resume) {
        return AgUiInterruptsIT.input(
                threadId,
                runId,
                Json.createArrayBuilder().add(AgUiInterruptsIT.PICK_COLOR).build(),
                resume,
                KEY,
                "pick a color");
    }

    private static List<AgentsIT.Event> post(Api api, String agentId, String body) {
        return AgentsIT.readSse(
                api.request("/api/v1/agents/" + agentId, Api.TENANT_A)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body)));
    }
}
