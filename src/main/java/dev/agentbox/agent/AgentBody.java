package dev.agentbox.agent;

import dev.agentbox.platform.body.JsonBody;
import dev.agentbox.platform.body.TypeMismatch;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.List;

/**
 * The {@code PUT /agents/{agentId}} body as it arrives, read by {@link JsonBody}: the members of
 * {@code POST /runs} that do not change from run to run, plus {@code tools} and {@code webhooks}.
 * The run members' own rules are {@code POST /runs}'s, which {@link AgentTemplate#parse} applies to
 * the body a run would send; here only the shape and what belongs to a definition alone.
 */
public record AgentBody(
        @TypeMismatch(SANDBOX) @NotNull(message = SANDBOX) JsonObject sandbox,
        JsonValue harness,
        JsonValue command,
        JsonValue permissionMode,
        JsonValue durable,
        JsonValue detachOnDisconnect,
        JsonValue destroyOnComplete,
        JsonValue maxDurationMs,
        @TypeMismatch(value = "must be an array of tools", elements = "must be an object")
                @Size(max = AgentTemplate.MAX_TOOLS, message = TOO_MANY_TOOLS)
                List<@NotNull(message = "must be an object") JsonObject> tools,
        JsonValue approvals,
        JsonValue webhooks,
        JsonValue brokeredSecrets,
        JsonValue plainSecrets,
        JsonValue acp) {

    static final String SANDBOX = "is required: an ensure body (as POST /sandboxes)";
    static final String TOO_MANY_TOOLS = "holds more than " + AgentTemplate.MAX_TOOLS + " tools";

    public AgentBody {
        tools = tools == null ? List.of() : tools;
    }

    static AgentBody read(JsonValue body) {
        return JsonBody.read(body, AgentBody.class);
    }
}
