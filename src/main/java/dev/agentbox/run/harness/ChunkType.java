package dev.agentbox.run.harness;

import java.util.List;
import java.util.Optional;

/**
 * The AG-UI event types agentbox's chunks use (a subset of AG-UI 1.0's vocabulary: no snapshots,
 * state, activity, raw, chunk-shorthand, encrypted-value or subagent events), with the fields AG-UI
 * requires for each (beyond {@code type}, {@code threadId}, {@code runId}, {@code timestamp}, which
 * every chunk carries).
 */
public enum ChunkType {
    RUN_STARTED(),
    TEXT_MESSAGE_START("messageId", "role"),
    TEXT_MESSAGE_CONTENT("messageId", "delta"),
    TEXT_MESSAGE_END("messageId"),
    TOOL_CALL_START("toolCallId", "toolCallName"),
    TOOL_CALL_ARGS("toolCallId", "delta"),
    TOOL_CALL_END("toolCallId"),
    TOOL_CALL_RESULT("toolCallId", "messageId", "content"),
    CUSTOM("name", "value"),
    STEP_STARTED("stepName"),
    STEP_FINISHED("stepName"),
    REASONING_START("messageId"),
    REASONING_MESSAGE_START("messageId", "role"),
    REASONING_MESSAGE_CONTENT("messageId", "delta"),
    REASONING_MESSAGE_END("messageId"),
    REASONING_END("messageId"),
    RUN_FINISHED(),
    RUN_ERROR("message", "code");

    private final List<String> requiredFields;

    ChunkType(String... requiredFields) {
        this.requiredFields = List.of(requiredFields);
    }

    /** Fields AG-UI requires for this type, besides the four every chunk carries. */
    public List<String> requiredFields() {
        return requiredFields;
    }

    /** {@code RUN_FINISHED} and {@code RUN_ERROR} end a run's event stream. */
    public boolean isTerminal() {
        return this == RUN_FINISHED || this == RUN_ERROR;
    }

    /** Types that mark a run's lifecycle; only the service emits them, never an agent. */
    public boolean isLifecycle() {
        return this == RUN_STARTED || isTerminal();
    }

    /** The type named {@code name} exactly (case-sensitive, as on the wire). */
    public static Optional<ChunkType> of(String name) {
        for (ChunkType type : values()) {
            if (type.name().equals(name)) {
                return Optional.of(type);
            }
        }
        return Optional.empty();
    }
}
