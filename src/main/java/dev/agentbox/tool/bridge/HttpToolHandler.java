package dev.agentbox.tool.bridge;

import dev.agentbox.tool.GateDecision;
import dev.agentbox.tool.ToolCall;
import dev.agentbox.tool.ToolCallEvents;
import dev.agentbox.tool.ToolGate;
import dev.agentbox.tool.http.HttpTool;
import dev.agentbox.tool.http.HttpToolClient;
import dev.agentbox.tool.http.ToolCallFailure;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Runs the calls of one HTTP tool: the gate first, then the post; whatever goes wrong is an MCP
 * error result the agent reads (a refusal with its reason, a host not allowed, a timeout, an answer
 * too large), never an exception out of the MCP session. Arguments reach it already checked against
 * the tool's schema by the SDK ({@code validateToolInputs}).
 */
final class HttpToolHandler {

    private final String runId;
    private final HttpTool tool;
    private final byte[] secret;
    private final ToolGate gate;
    private final HttpToolClient client;
    private final ToolCallEvents events;
    private final McpJsonMapper json;
    private final Scheduler blocking;

    HttpToolHandler(
            String runId,
            HttpTool tool,
            byte[] secret,
            ToolGate gate,
            HttpToolClient client,
            ToolCallEvents events,
            McpJsonMapper json,
            Scheduler blocking) {
        this.runId = runId;
        this.tool = tool;
        this.secret = secret;
        this.gate = gate;
        this.client = client;
        this.events = events;
        this.json = json;
        this.blocking = blocking;
    }

    McpServerFeatures.AsyncToolSpecification specification() {
        McpSchema.Tool t =
                McpSchema.Tool.builder()
                        .name(tool.name())
                        .description(tool.description())
                        .inputSchema(json, tool.parameters().toString())
                        .build();
        return McpServerFeatures.AsyncToolSpecification.builder()
                .tool(t)
                .callHandler(this::call)
                .build();
    }

    private Mono<McpSchema.CallToolResult> call(
            McpAsyncServerExchange exchange, McpSchema.CallToolRequest request) {
        Object key =
                request.meta() == null ? null : request.meta().get(BridgeSession.CALL_KEY_META);
        String callKey = key instanceof String s ? s : "unkeyed";
        JsonObject arguments = toJsonP(request.arguments());
        events.started(callKey, tool.name(), arguments.toString());
        return Mono.defer(
                        () ->
                                Mono.fromCompletionStage(
                                        gate.admit(
                                                new ToolCall(
                                                        runId, callKey, tool.name(), arguments))))
                .publishOn(blocking)
                .map(decision -> decide(decision, arguments, callKey))
                .onErrorResume(e -> Mono.just(error("tool call failed: " + e.getMessage())))
                .doOnNext(r -> events.finished(callKey, text(r), Boolean.TRUE.equals(r.isError())));
    }

    private McpSchema.CallToolResult decide(
            GateDecision decision, JsonObject arguments, String callKey) {
        if (!decision.allowed()) {
            return error("tool call refused: " + decision.reason());
        }
        JsonObject args = decision.arguments().orElse(arguments);
        try {
            HttpToolClient.Answer a =
                    client.post(
                            tool.url(),
                            secret,
                            args.toString().getBytes(StandardCharsets.UTF_8),
                            callKey);
            if (a.status() / 100 != 2) {
                return error("tool answered HTTP " + a.status() + ": " + a.body());
            }
            return McpSchema.CallToolResult.builder()
                    .addTextContent(a.body())
                    .isError(false)
                    .build();
        } catch (ToolCallFailure f) {
            return error(f.getMessage());
        }
    }

    private static McpSchema.CallToolResult error(String message) {
        return McpSchema.CallToolResult.builder().addTextContent(message).isError(true).build();
    }

    private static String text(McpSchema.CallToolResult r) {
        StringBuilder sb = new StringBuilder();
        for (McpSchema.Content c : r.content()) {
            if (c instanceof McpSchema.TextContent t) {
                sb.append(t.text());
            }
        }
        return sb.toString();
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
