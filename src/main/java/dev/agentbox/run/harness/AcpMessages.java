package dev.agentbox.run.harness;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.json.bind.JsonbConfig;
import jakarta.json.bind.JsonbException;
import java.util.List;
import java.util.Optional;

/**
 * The messages of the Agent Client Protocol (v1, {@code protocolVersion} 1) that agentbox sends and
 * reads, one JSON-B record each, named as the schema names them. Only the members agentbox uses are
 * mapped: JSON-B ignores the others, so an agent that sends members a later version adds (or the
 * schema dropped) is read all the same. Updates are kept as their JSON object as well, so a kind
 * agentbox does not know is passed on whole ({@code CUSTOM acp.update}).
 *
 * <p>Null members are not written: an absent optional member is what the schema expects.
 */
public final class AcpMessages {

    /** The protocol version agentbox speaks. */
    public static final int PROTOCOL_VERSION = 1;

    private static final Jsonb JSONB = JsonbBuilder.create(new JsonbConfig().withNullValues(false));

    private AcpMessages() {}

    /** One JSON-RPC 2.0 message as it arrives: request, notification, result or error. */
    public record Envelope(
            String jsonrpc,
            JsonValue id,
            String method,
            JsonValue params,
            JsonValue result,
            RpcError error) {

        /** A request: a method and an id. */
        public boolean isRequest() {
            return method != null && id != null && id != JsonValue.NULL;
        }

        /** A notification: a method and no id. */
        public boolean isNotification() {
            return method != null && (id == null || id == JsonValue.NULL);
        }

        /** A response: an id, no method, a result or an error. */
        public boolean isResponse() {
            return method == null && id != null && (result != null || error != null);
        }
    }

    /** A request or notification of ours ({@code id} null for a notification). */
    public record Request(String jsonrpc, Long id, String method, Object params) {
        public static Request of(long id, String method, Object params) {
            return new Request("2.0", id, method, params);
        }

        public static Request notification(String method, Object params) {
            return new Request("2.0", null, method, params);
        }
    }

    /** Our answer to a request of the agent's: a result or an error. */
    public record Response(String jsonrpc, JsonValue id, Object result, RpcError error) {
        public static Response result(JsonValue id, Object result) {
            return new Response("2.0", id, result, null);
        }

        public static Response error(JsonValue id, int code, String message) {
            return new Response("2.0", id, null, new RpcError(code, message, null));
        }
    }

    /** A JSON-RPC error object. */
    public record RpcError(Integer code, String message, JsonValue data) {}

    // ---- client → agent ----

    public record InitializeRequest(
            int protocolVersion,
            ClientCapabilities clientCapabilities,
            Implementation clientInfo) {}

    public record ClientCapabilities(FileSystemCapabilities fs, boolean terminal) {}

    public record FileSystemCapabilities(boolean readTextFile, boolean writeTextFile) {}

    public record Implementation(String name, String version) {}

    public record NewSessionRequest(String cwd, List<McpServerStdio> mcpServers) {}

    public record LoadSessionRequest(
            String sessionId, String cwd, List<McpServerStdio> mcpServers) {}

    public record ResumeSessionRequest(
            String sessionId, String cwd, List<McpServerStdio> mcpServers) {}

    public record McpServerStdio(
            String name, String command, List<String> args, List<EnvVariable> env) {}

    public record EnvVariable(String name, String value) {}

    public record SetSessionModeRequest(String sessionId, String modeId) {}

    public record PromptRequest(String sessionId, List<TextContent> prompt) {}

    public record TextContent(String type, String text) {
        public static TextContent of(String text) {
            return new TextContent("text", text);
        }
    }

    public record CancelNotification(String sessionId) {}

    public record RequestPermissionResponse(RequestPermissionOutcome outcome) {}

    /** {@code {"outcome":"selected","optionId"}} or {@code {"outcome":"cancelled"}}. */
    public record RequestPermissionOutcome(String outcome, String optionId) {
        public static RequestPermissionOutcome selected(String optionId) {
            return new RequestPermissionOutcome("selected", optionId);
        }

        public static RequestPermissionOutcome cancelled() {
            return new RequestPermissionOutcome("cancelled", null);
        }
    }

    // ---- agent → client ----

    public record InitializeResponse(
            Integer protocolVersion, AgentCapabilities agentCapabilities) {}

    public record AgentCapabilities(Boolean loadSession, JsonObject sessionCapabilities) {

        public boolean loads() {
            return Boolean.TRUE.equals(loadSession);
        }

        /** {@code sessionCapabilities.resume} present and not null. */
        public boolean resumes() {
            return sessionCapabilities != null
                    && sessionCapabilities.containsKey("resume")
                    && sessionCapabilities.get("resume") != JsonValue.NULL;
        }
    }

    /** The result of {@code session/new}, {@code session/load} and {@code session/resume}. */
    public record SessionResponse(String sessionId, SessionModeState modes) {}

    public record SessionModeState(String currentModeId, List<SessionMode> availableModes) {}

    public record SessionMode(String id, String name) {}

    public record PromptResponse(String stopReason) {}

    public record SessionNotification(String sessionId, JsonObject update) {}

    /** {@code agent_message_chunk}, {@code agent_thought_chunk}, {@code user_message_chunk}. */
    public record ContentChunk(String sessionUpdate, ContentBlock content) {}

    public record ContentBlock(String type, String text) {}

    /**
     * A {@code tool_call}, a {@code tool_call_update}, or the tool call of a permission request.
     */
    public record ToolCallUpdate(
            String toolCallId,
            String title,
            String kind,
            String status,
            JsonValue rawInput,
            JsonValue rawOutput,
            List<ToolCallContent> content) {}

    /**
     * {@code {"type":"content","content":{…}}} or {@code
     * {"type":"diff","path","oldText","newText"}}.
     */
    public record ToolCallContent(
            String type, ContentBlock content, String path, String oldText, String newText) {}

    public record Plan(List<JsonObject> entries) {}

    public record RequestPermissionRequest(
            String sessionId, ToolCallUpdate toolCall, List<PermissionOption> options) {}

    public record PermissionOption(String optionId, String name, String kind) {}

    /** Reads {@code json} as {@code type}; empty when it is not one (wrong shape or type). */
    public static <T> Optional<T> read(String json, Class<T> type) {
        try {
            return Optional.ofNullable(JSONB.fromJson(json, type));
        } catch (JsonbException | ClassCastException e) {
            return Optional.empty();
        }
    }

    /** Reads {@code value} (an object) as {@code type}; empty when it is not one. */
    public static <T> Optional<T> read(JsonValue value, Class<T> type) {
        if (value == null || value.getValueType() != JsonValue.ValueType.OBJECT) {
            return Optional.empty();
        }
        return read(value.toString(), type);
    }

    /** {@code value} as JSON text, without null members. */
    public static String write(Object value) {
        return JSONB.toJson(value);
    }
}
