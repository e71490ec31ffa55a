package dev.agentbox.run.acp;

import static org.assertj.core.api.Assertions.assertThat;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.agentbox.run.harness.AcpConversation.Step;
import dev.agentbox.run.harness.AcpMessages;
import dev.agentbox.run.harness.AcpMessages.CancelNotification;
import dev.agentbox.run.harness.AcpMessages.EnvVariable;
import dev.agentbox.run.harness.AcpMessages.McpServerStdio;
import dev.agentbox.run.harness.AcpMessages.PermissionOption;
import dev.agentbox.run.harness.AcpMessages.Request;
import dev.agentbox.run.harness.AcpMessages.RequestPermissionResponse;
import dev.agentbox.run.harness.AcpMessages.Response;
import dev.agentbox.run.harness.AcpPlan;
import dev.agentbox.run.harness.PermissionMode;
import jakarta.json.Json;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Every message agentbox sends an ACP agent is valid against the ACP v1 schema (vendored from the
 * protocol's own package, src/test/resources/acp/v1): the request's params against the schema's
 * type for its method, our answers against the response types (AC-09).
 */
class AcpSchemaTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNode SCHEMA = load();

    private static JsonNode load() {
        try (InputStream in = AcpSchemaTest.class.getResourceAsStream("/acp/v1/schema.json")) {
            return JSON.readTree(in);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The schema's {@code $defs} with {@code type} as its root. */
    private static List<Error> validate(String type, JsonNode value) {
        ObjectNode root = JSON.createObjectNode();
        root.put("$schema", "https://json-schema.org/draft/2020-12/schema");
        root.put("$ref", "#/$defs/" + type);
        root.set("$defs", SCHEMA.get("$defs"));
        Schema schema =
                SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
                        .getSchema(root);
        return schema.validate(value);
    }

    private static void assertRequest(String line, String method, String paramsType)
            throws Exception {
        JsonNode m = JSON.readTree(line);
        assertThat(m.get("jsonrpc").asString()).isEqualTo("2.0");
        assertThat(m.get("method").asString()).isEqualTo(method);
        assertThat(validate(paramsType, m.get("params"))).as(line).isEmpty();
    }

    private static final AcpPlan PLAN =
            new AcpPlan(
                    "claude",
                    Optional.empty(),
                    PermissionMode.FALLBACK,
                    true,
                    true,
                    Optional.of("s-0"));

    private static String render(long id, String method, Optional<String> mode) {
        return AcpClient.render(
                new Step.Send(id, method, mode),
                PLAN,
                Optional.of("s-1"),
                "/workspace",
                () -> "fix the \"bug\"\n$(rm -rf /)",
                () ->
                        List.of(
                                new McpServerStdio(
                                        "agentbox",
                                        "/opt/agentbox/bin/agentbox-sandboxd",
                                        List.of("mcp", "/tmp/agentbox-runs/r.mcp"),
                                        List.of(new EnvVariable("AGENTBOX_MCP_TOKEN", "t")))));
    }

    @Test
    void everyRequestOfTheTurnMatchesItsSchemaType() throws Exception {
        assertRequest(render(1, "initialize", Optional.empty()), "initialize", "InitializeRequest");
        assertRequest(
                render(2, "session/new", Optional.empty()), "session/new", "NewSessionRequest");
        assertRequest(
                render(2, "session/load", Optional.empty()), "session/load", "LoadSessionRequest");
        assertRequest(
                render(2, "session/resume", Optional.empty()),
                "session/resume",
                "ResumeSessionRequest");
        assertRequest(
                render(3, "session/set_mode", Optional.of("default")),
                "session/set_mode",
                "SetSessionModeRequest");
        assertRequest(
                render(4, "session/prompt", Optional.empty()), "session/prompt", "PromptRequest");
        assertRequest(
                AcpMessages.write(
                        Request.notification("session/cancel", new CancelNotification("s-1"))),
                "session/cancel",
                "CancelNotification");
    }

    @Test
    void theCheckRefusesAMessageTheSchemaDoesNotAllow() throws Exception {
        assertThat(validate("InitializeRequest", JSON.readTree("{\"protocolVersion\":\"one\"}")))
                .isNotEmpty();
        assertThat(validate("PromptRequest", JSON.readTree("{\"sessionId\":\"s\"}"))).isNotEmpty();
        assertThat(validate("Error", JSON.readTree("{\"code\":\"x\"}"))).isNotEmpty();
    }

    @Test
    void theInitializeAdvertisesNeitherFilesNorTerminal() throws Exception {
        JsonNode caps =
                JSON.readTree(render(1, "initialize", Optional.empty()))
                        .get("params")
                        .get("clientCapabilities");
        assertThat(caps.get("fs").get("readTextFile").asBoolean()).isFalse();
        assertThat(caps.get("fs").get("writeTextFile").asBoolean()).isFalse();
        assertThat(caps.get("terminal").asBoolean()).isFalse();
    }

    @Test
    void ourAnswersMatchTheResponseTypes() throws Exception {
        List<PermissionOption> options =
                List.of(
                        new PermissionOption("allow", "Allow", "allow_once"),
                        new PermissionOption("reject", "Reject", "reject_once"));
        for (boolean allowed : new boolean[] {true, false}) {
            String line =
                    AcpMessages.write(
                            Response.result(
                                    Json.createValue(7),
                                    new RequestPermissionResponse(
                                            AcpClient.outcome(allowed, options))));
            JsonNode m = JSON.readTree(line);
            assertThat(m.get("id").asInt()).isEqualTo(7);
            assertThat(validate("RequestPermissionResponse", m.get("result"))).as(line).isEmpty();
            assertThat(m.get("result").get("outcome").get("optionId").asString())
                    .isEqualTo(allowed ? "allow" : "reject");
        }
        String cancelled =
                AcpMessages.write(
                        Response.result(
                                Json.createValue("x"),
                                new RequestPermissionResponse(AcpClient.outcome(true, List.of()))));
        assertThat(validate("RequestPermissionResponse", JSON.readTree(cancelled).get("result")))
                .isEmpty();
        assertThat(cancelled).contains("\"outcome\":{\"outcome\":\"cancelled\"}");
        JsonNode error =
                JSON.readTree(
                        AcpMessages.write(
                                Response.error(Json.createValue(3), -32601, "not offered")));
        assertThat(validate("Error", error.get("error"))).isEmpty();
    }
}
