package dev.agentbox.tool.bridge;

import dev.agentbox.tool.GateDecision;
import dev.agentbox.tool.ToolCall;
import dev.agentbox.tool.ToolGate;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.StringReader;
import java.util.Map;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The bridge's reserved tool that Claude Code asks before it runs one of its own tools ({@code
 * --permission-prompt-tool mcp__agentbox__approve}). Claude Code calls it with {@code
 * {"tool_name","input","tool_use_id?"}} and reads a text result holding {@code
 * {"behavior":"allow","updatedInput":{…}}} or {@code {"behavior":"deny","message":"…"}}.
 *
 * <p>It asks the run's gate with the tool name Claude Code gives ({@code Bash}, {@code Write}…), so
 * the run's approval rules apply to Claude Code's own tools. The run's HTTP tools ({@code
 * mcp__agentbox__…}) are allowed here at once: their own handler asks the gate by their bare name.
 * Any failure denies: a tool never runs without the decision its rules require.
 *
 * <p>Its name is reserved: an agent definition cannot name a tool {@value #TOOL_NAME}.
 */
public final class PermissionPrompt {

    /** The reserved tool name. */
    public static final String TOOL_NAME = "approve";

    private static final String OWN_TOOLS = "mcp__agentbox__";

    private static final String SCHEMA =
            "{\"type\":\"object\",\"properties\":{\"tool_name\":{\"type\":\"string\"},"
                    + "\"input\":{\"type\":\"object\"},\"tool_use_id\":{\"type\":\"string\"}},"
                    + "\"required\":[\"tool_name\"]}";

    private final String runId;
    private final ToolGate gate;
    private final McpJsonMapper json;
    private final Scheduler blocking;

    PermissionPrompt(String runId, ToolGate gate, McpJsonMapper json, Scheduler blocking) {
        this.runId = runId;
        this.gate = gate;
        this.json = json;
        this.blocking = blocking;
    }

    McpServerFeatures.AsyncToolSpecification specification() {
        McpSchema.Tool t =
                McpSchema.Tool.builder()
                        .name(TOOL_NAME)
                        .description("Asks whether a tool call may run (the run's approval rules).")
                        .inputSchema(json, SCHEMA)
                        .build();
        return McpServerFeatures.AsyncToolSpecification.builder()
                .tool(t)
                .callHandler(this::call)
                .build();
    }

    private Mono<McpSchema.CallToolResult> call(
            McpAsyncServerExchange exchange, McpSchema.CallToolRequest request) {
        JsonObject args = toJsonP(request.arguments());
        String tool = args.getString("tool_name", "");
        JsonObject input =
                args.get("input") instanceof JsonObject o ? o : JsonObject.EMPTY_JSON_OBJECT;
        if (tool.startsWith(OWN_TOOLS)) {
            return Mono.just(allow(input));
        }
        Object key =
                request.meta() == null ? null : request.meta().get(BridgeSession.CALL_KEY_META);
        String callKey = key instanceof String s ? s : "unkeyed";
        return Mono.defer(
                        () ->
                                Mono.fromCompletionStage(
                                        gate.admit(new ToolCall(runId, callKey, tool, input))))
                .publishOn(blocking)
                .map(d -> decide(d, input))
                .onErrorResume(e -> Mono.just(deny("approval failed: " + e.getMessage())));
    }

    private static McpSchema.CallToolResult decide(GateDecision d, JsonObject input) {
        return d.allowed() ? allow(d.arguments().orElse(input)) : deny("refused: " + d.reason());
    }

    static McpSchema.CallToolResult allow(JsonObject input) {
        return text(
                Json.createObjectBuilder()
                        .add("behavior", "allow")
                        .add("updatedInput", input)
                        .build());
    }

    static McpSchema.CallToolResult deny(String message) {
        return text(
                Json.createObjectBuilder().add("behavior", "deny").add("message", message).build());
    }

    private static McpSchema.CallToolResult text(JsonObject o) {
        return McpSchema.CallToolResult.builder()
                .addTextContent(o.toString())
                .isError(false)
                .build();
    }

    private JsonObject toJsonP(Map<String, Object> arguments) {
        if (arguments == null) {
            return JsonObject.EMPTY_JSON_OBJECT;
        }
        try {
            return Json.createReader(new StringReader(json.writeValueAsString(arguments)))
                    .readObject();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
