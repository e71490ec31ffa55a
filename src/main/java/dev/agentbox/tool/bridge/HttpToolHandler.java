package dev.agentbox.tool.bridge;

import dev.agentbox.tool.ToolCall;
import dev.agentbox.tool.http.HttpTool;
import dev.agentbox.tool.http.HttpToolClient;
import dev.agentbox.tool.http.ToolCallFailure;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.charset.StandardCharsets;
import reactor.core.publisher.Mono;

/**
 * What an allowed call of one HTTP tool does ({@link GatedTool.Action}): the post, signed with the
 * run's secret and keyed by the call; a non-{@code 2xx} answer, a host not allowed, a timeout or an
 * answer too large is an error result with the reason.
 */
final class HttpToolHandler implements GatedTool.Action {

    private final HttpTool tool;
    private final byte[] secret;
    private final HttpToolClient client;

    HttpToolHandler(HttpTool tool, byte[] secret, HttpToolClient client) {
        this.tool = tool;
        this.secret = secret;
        this.client = client;
    }

    static GatedTool.Description description(HttpTool tool) {
        return new GatedTool.Description(tool.name(), tool.description(), tool.parameters());
    }

    @Override
    public Mono<McpSchema.CallToolResult> run(ToolCall call) {
        return Mono.fromCallable(() -> post(call));
    }

    private McpSchema.CallToolResult post(ToolCall call) {
        try {
            HttpToolClient.Answer a =
                    client.post(
                            tool.url(),
                            secret,
                            call.arguments().toString().getBytes(StandardCharsets.UTF_8),
                            call.callKey());
            if (a.status() / 100 != 2) {
                return GatedTool.result("tool answered HTTP " + a.status() + ": " + a.body(), true);
            }
            return GatedTool.result(a.body(), false);
        } catch (ToolCallFailure f) {
            return GatedTool.result(f.getMessage(), true);
        }
    }
}
