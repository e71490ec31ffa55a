package dev.agentbox.tool;

/**
 * What a run's stream is told of a bridged tool call: that it started (with its arguments) and how
 * it ended. Called from the bridge's threads; implementations must not block for long.
 */
public interface ToolCallEvents {

    ToolCallEvents NONE =
            new ToolCallEvents() {
                @Override
                public void started(String callKey, String tool, String argumentsJson) {}

                @Override
                public void finished(String callKey, String resultText, boolean error) {}
            };

    /** The call {@code callKey} of {@code tool} passed the schema check and goes to the gate. */
    void started(String callKey, String tool, String argumentsJson);

    /** The call ended: the text the agent is handed, and whether it is an error result. */
    void finished(String callKey, String resultText, boolean error);
}
