package dev.agentbox.tool.bridge;

import dev.agentbox.tool.ToolCall;
import dev.agentbox.tool.ToolCallEvents;
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
 * One bridged tool as the MCP server offers it: every call is reported ({@link ToolCallEvents}),
 * passes the run's gate, and only then is {@linkplain Action run} with the arguments the gate let
 * through (a person's edited ones, or the agent's). Whatever goes wrong is an MCP error result the
 * agent reads — a refusal with its reason, a failure of the action — never an exception out of the
 * MCP session. Arguments reach it already checked against the schema by the SDK ({@code
 * validateToolInputs}), so an invalid call never reaches the gate or the action.
 */
final class GatedTool {

    /** What an allowed call does; called on the bridge's blocking scheduler. */
    @FunctionalInterface
    interface Action {
        Mono<McpSchema.CallToolResult> run(ToolCall call);
    }

    /** The tool as the agent sees it. */
    record Description(String name, String description, JsonObject parameters) {}

    private final String runId;
    private final Description tool;
    private final ToolGate gate;
    private final ToolCallEvents events;
    private final McpJsonMapper json;
    private final Scheduler blocking;
    private final Action action;

    GatedTool(
            String runId,
            Description tool,
            ToolGate gate,
            ToolCallEvents events,
            McpJsonMapper json,
            Scheduler blocking,
            Action action) {
        this.runId = runId;
        this.tool = tool;
        this.gate = gate;
        this.events = events;
        this.json = json;
        this.blocking = blocking;
        this.action = action;
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
        ToolCall asked = new ToolCall(runId, callKey, tool.name(), arguments);
        return Mono.defer(() -> Mono.fromCompletionStage(gate.admit(asked)))
                .publishOn(blocking)
                .flatMap(
                        decision ->
                                decision.allowed()
                                        ? action.run(
                                                new ToolCall(
                                                        runId,
                                                        callKey,
                                                        tool.name(),
                                                        decision.arguments().orElse(arguments)))
                                        : Mono.just(
                                                result(
                                                        "tool call refused: " + decision.reason(),
                                                        true)))
                .onErrorResume(e -> Mono.just(result("tool call failed: " + e.getMessage(), true)))
                .doOnNext(r -> events.finished(callKey, text(r), Boolean.TRUE.equals(r.isError())));
    }

    /** A result of one text: the answer, or the error the agent is told. */
    static McpSchema.CallToolResult result(String text, boolean error) {
        return McpSchema.CallToolResult.builder().addTextContent(text).isError(error).build();
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
