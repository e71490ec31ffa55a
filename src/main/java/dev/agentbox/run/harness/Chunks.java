package dev.agentbox.run.harness;

import dev.agentbox.platform.CanonicalJson;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Reading and fingerprinting chunks (AG-UI events as JSON objects). */
public final class Chunks {

    /** Looked up once: {@code Json.createX} looks the provider up on every call, which is slow. */
    private static final JsonProvider JSON = JsonProvider.provider();

    /** Fields every chunk carries. */
    public static final List<String> COMMON_FIELDS =
            List.of("type", "threadId", "runId", "timestamp");

    /** Required fields that must be JSON strings when present (all but CUSTOM's {@code value}). */
    private static final List<String> STRING_FIELDS =
            List.of(
                    "messageId",
                    "role",
                    "delta",
                    "toolCallId",
                    "toolCallName",
                    "content",
                    "name",
                    "message",
                    "code",
                    "stepName");

    /**
     * Names of the {@code CUSTOM} chunks only the service writes on its own account ({@code
     * run.accepted}, {@code file.changed}). No translator emits them from a journal line (the
     * {@code command} harness turns an agent's line naming one into {@code agent.output}), so a
     * stored {@code CUSTOM} chunk with one of these names was written by the service, and a
     * takeover's replay may pass over it.
     */
    public static final Set<String> SERVICE_NAMES =
            Set.of(
                    "run.accepted",
                    "file.changed",
                    "egress.denied",
                    "egress.secret-missing",
                    "approval.decided",
                    "interrupt.requested");

    private Chunks() {}

    /**
     * Whether {@code chunk} is a {@code CUSTOM} chunk with a {@linkplain #SERVICE_NAMES service
     * name}.
     */
    public static boolean isServiceChunk(JsonObject chunk) {
        return "CUSTOM".equals(string(chunk, "type").orElse(null))
                        && string(chunk, "name").filter(SERVICE_NAMES::contains).isPresent()
                || isBridgeChunk(chunk);
    }

    /**
     * Prefix of the {@code toolCallId} of the tool calls the tool bridge reports ({@code
     * TOOL_CALL_START/ARGS/END/RESULT} of a run's own tools, dev.agentbox.tool). Reserved like
     * {@link #SERVICE_NAMES}: no translator makes such an id from a journal line, and the {@code
     * command} harness turns an agent's line that carries one into {@code agent.output}.
     */
    public static final String BRIDGE_TOOL_CALL_PREFIX = "agentbox-tool-";

    private static final Set<String> TOOL_CALL_TYPES =
            Set.of("TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT");

    /** Whether {@code chunk} is a tool-call chunk the tool bridge wrote (its reserved id). */
    public static boolean isBridgeChunk(JsonObject chunk) {
        return string(chunk, "type").filter(TOOL_CALL_TYPES::contains).isPresent()
                && string(chunk, "toolCallId")
                        .filter(id -> id.startsWith(BRIDGE_TOOL_CALL_PREFIX))
                        .isPresent();
    }

    /**
     * The chunk's fingerprint: lowercase hex SHA-256 of the canonical JSON of the chunk without its
     * {@code timestamp} (the only field a replay cannot reproduce). Everything else, including
     * nested values such as tool arguments, participates.
     */
    public static String fingerprint(JsonObject chunk) {
        return CanonicalJson.sha256Of(withoutTimestamp(chunk));
    }

    /** The chunk without its {@code timestamp} member. */
    public static JsonObject withoutTimestamp(JsonObject chunk) {
        if (!chunk.containsKey("timestamp")) {
            return chunk;
        }
        JsonObjectBuilder b = JSON.createObjectBuilder(chunk);
        b.remove("timestamp");
        return b.build();
    }

    /** The chunk's type, when its {@code type} is a string naming a known type. */
    public static Optional<ChunkType> typeOf(JsonObject chunk) {
        JsonValue type = chunk.get("type");
        if (type == null || type.getValueType() != JsonValue.ValueType.STRING) {
            return Optional.empty();
        }
        return ChunkType.of(chunk.getString("type"));
    }

    /** Whether the chunk ends the run's event stream. */
    public static boolean isTerminal(JsonObject chunk) {
        return typeOf(chunk).map(ChunkType::isTerminal).orElse(false);
    }

    /** A string member, when present and a string. */
    public static Optional<String> string(JsonObject object, String field) {
        JsonValue v = object.get(field);
        return v != null && v.getValueType() == JsonValue.ValueType.STRING
                ? Optional.of(object.getString(field))
                : Optional.empty();
    }

    /**
     * What makes the chunk invalid: a missing or unknown type, a missing common field, a missing
     * required field of its type, a non-string id/text field, or a non-number timestamp. Empty when
     * valid.
     */
    public static List<String> problems(JsonObject chunk) {
        List<String> problems = new ArrayList<>();
        Optional<ChunkType> type = typeOf(chunk);
        if (type.isEmpty()) {
            problems.add("type: missing or unknown");
        }
        for (String field : List.of("threadId", "runId")) {
            if (string(chunk, field).isEmpty()) {
                problems.add(field + ": missing or not a string");
            }
        }
        JsonValue ts = chunk.get("timestamp");
        if (ts == null || ts.getValueType() != JsonValue.ValueType.NUMBER) {
            problems.add("timestamp: missing or not a number");
        }
        type.ifPresent(t -> problems.addAll(missingTypeFields(t, chunk)));
        return problems;
    }

    /** Required fields of {@code type} that {@code object} lacks (or has with the wrong kind). */
    static List<String> missingTypeFields(ChunkType type, JsonObject object) {
        List<String> missing = new ArrayList<>();
        for (String field : type.requiredFields()) {
            if (!object.containsKey(field)) {
                missing.add(field + ": missing");
            } else if (STRING_FIELDS.contains(field) && string(object, field).isEmpty()) {
                missing.add(field + ": not a string");
            }
        }
        return missing;
    }
}
