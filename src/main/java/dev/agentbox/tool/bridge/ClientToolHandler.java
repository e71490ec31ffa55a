package dev.agentbox.tool.bridge;

import dev.agentbox.tool.ClientTool;
import dev.agentbox.tool.ClientToolCalls;
import dev.agentbox.tool.GateDecision;
import dev.agentbox.tool.ToolCall;
import dev.agentbox.tool.ToolCallEvents;
import dev.agentbox.tool.ToolCallIds;
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
 * Runs the calls of one client tool ({@code RunAgentInput.tools}): the call is streamed ({@code
 * TOOL_CALL_START/ARGS/END}, id {@link ToolCallIds#of} of its key), the gate decides as for any
 * bridged tool, then the call waits for the client's answer ({@link ClientToolCalls}) and hands the
 * agent its result, or an error result for an error, a refusal, a cancel or an expiry. Arguments
 * reach it already checked against the tool's schema by the SDK ({@code validateToolInputs}): an
 * invalid call is an MCP error result and never reaches the client.
 */
final class ClientToolHandler {

    private final String runId;
    private final ClientTool tool;
    private final ToolGate gate;
    private final ClientToolCalls client;
    private final ToolCallEvents events;
    private final McpJsonMapper json;
    private final Scheduler blocking;

    ClientToolHandler(
            String runId,
            ClientTool tool,
            ToolGate gate,
            ClientToolCalls client,
            ToolCallEvents events,
            McpJsonMapper json,
            Scheduler blocking) {
        this.runId = runId;
        this.tool = tool;
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
        ToolCall asked = new ToolCall(runId, callKey, tool.name(), arguments);
        return Mono.defer(() -> Mono.fromCompletionStage(gate.admit(asked)))
                .publishOn(blocking)
                .flatMap(decision -> decide(decision, asked))
                .onErrorResume(e -> Mono.just(result("tool call failed: " + e.getMessage(), true)))
                .doOnNext(r -> events.finished(callKey, text(r), Boolean.TRUE.equals(r.isError())));
    }

    private Mono<McpSchema.CallToolResult> decide(GateDecision decision, ToolCall asked) {
        if (!decision.allowed()) {
            return Mono.just(result("tool call refused: " + decision.reason(), true));
        }
        ToolCall call =
                new ToolCall(
                        asked.runId(),
                        asked.callKey(),
                        asked.tool(),
                        decision.arguments().orElse(asked.arguments()));
        return Mono.defer(
                        () ->
                                Mono.fromCompletionStage(
                                        client.call(call, ToolCallIds.of(call.callKey()))))
                .publishOn(blocking)
                .map(a -> result(a.text(), a.error()));
    }

    private static McpSchema.CallToolResult result(String text, boolean error) {
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
