package dev.agentbox.tool.bridge;

import dev.agentbox.tool.ClientTool;
import dev.agentbox.tool.ClientToolCalls;
import dev.agentbox.tool.ToolCall;
import dev.agentbox.tool.ToolCallIds;
import io.modelcontextprotocol.spec.McpSchema;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * What an allowed call of one client tool ({@code RunAgentInput.tools}) does ({@link
 * GatedTool.Action}): it is streamed ({@code TOOL_CALL_START/ARGS/END}, id {@link ToolCallIds#of}
 * of its key) and waits for the client's answer ({@link ClientToolCalls}), which the agent gets as
 * its result, or as an error result for an error, a cancel or an expiry.
 */
final class ClientToolHandler implements GatedTool.Action {

    private final ClientToolCalls client;
    private final Scheduler blocking;

    ClientToolHandler(ClientToolCalls client, Scheduler blocking) {
        this.client = client;
        this.blocking = blocking;
    }

    static GatedTool.Description description(ClientTool tool) {
        return new GatedTool.Description(tool.name(), tool.description(), tool.parameters());
    }

    @Override
    public Mono<McpSchema.CallToolResult> run(ToolCall call) {
        return Mono.defer(
                        () ->
                                Mono.fromCompletionStage(
                                        client.call(call, ToolCallIds.of(call.callKey()))))
                .publishOn(blocking)
                .map(a -> GatedTool.result(a.text(), a.error()));
    }
}
