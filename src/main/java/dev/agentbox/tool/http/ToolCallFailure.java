package dev.agentbox.tool.http;

/** A tool call that could not produce an answer; its message is what the agent is told. */
public class ToolCallFailure extends Exception {

    private static final long serialVersionUID = 1L;

    public ToolCallFailure(String message) {
        super(message);
    }

    public ToolCallFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
