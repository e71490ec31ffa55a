package dev.agentbox.testing.model;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.util.Optional;

/**
 * One scripted answer of {@link ScriptedModelServer} to one streaming model request, in whichever
 * API the request came in: Anthropic Messages, OpenAI Responses or Gemini.
 */
public sealed interface Turn {

    /** The assistant says {@code text} and ends its turn. */
    record Text(String text) implements Turn {}

    /**
     * The assistant calls tool {@code name} with {@code input} and stops for its result: a {@code
     * tool_use} block (Anthropic) or a {@code function_call} item whose {@code arguments} are
     * {@code input} as a JSON string (OpenAI), in {@code namespace} when given (OpenAI: a tool a
     * {@link ToolSearch} found, e.g. {@code mcp__agentbox}).
     */
    record ToolCall(String name, JsonObject input, Optional<String> namespace) implements Turn {
        public ToolCall(String name, JsonObject input) {
            this(name, input, Optional.empty());
        }
    }

    /**
     * The assistant searches the client's deferred tools for {@code query} (OpenAI Responses only:
     * a {@code tool_search_call} item executed by the client, as Codex offers its MCP tools), and
     * stops for the tools found.
     */
    record ToolSearch(String query) implements Turn {}

    /** The API fails: HTTP {@code status} with the API's error body of {@code type}. */
    record ApiError(int status, String type, String message) implements Turn {}

    /** The stream starts, then the connection ends before the response is complete. */
    record Disconnect() implements Turn {}

    static Turn toolSearch(String query) {
        return new ToolSearch(query);
    }

    static Turn text(String text) {
        return new Text(text);
    }

    /** Claude Code's {@code Bash} tool running {@code command}. */
    static Turn claudeBash(String command) {
        return new ToolCall(
                "Bash",
                Json.createObjectBuilder()
                        .add("command", command)
                        .add("description", "Run a command")
                        .build());
    }

    /** Codex's shell tool ({@code exec_command}) running {@code cmd}. */
    static Turn codexExec(String cmd) {
        return new ToolCall("exec_command", Json.createObjectBuilder().add("cmd", cmd).build());
    }

    /** HTTP 500, an internal error of the API. */
    static Turn serverError(String message) {
        return new ApiError(500, "api_error", message);
    }

    /** HTTP 400, a request the API refuses (no client retries it). */
    static Turn badRequest(String message) {
        return new ApiError(400, "invalid_request_error", message);
    }

    /** The Gemini CLI's shell tool ({@code run_shell_command}) running {@code command}. */
    static Turn geminiShell(String command) {
        return new ToolCall(
                "run_shell_command",
                Json.createObjectBuilder()
                        .add("command", command)
                        .add("description", "Run a command")
                        .build());
    }

    /**
     * Codex's shell tool running {@code cmd} outside its sandbox ({@code sandbox_permissions:
     * require_escalated}), which Codex asks the user about in any mode that asks.
     */
    static Turn codexEscalatedExec(String cmd) {
        return new ToolCall(
                "exec_command",
                Json.createObjectBuilder()
                        .add("cmd", cmd)
                        .add("sandbox_permissions", "require_escalated")
                        .add("justification", "Write the file the user asked for")
                        .build());
    }

    /** HTTP 529, Anthropic's "overloaded". */
    static Turn overloaded() {
        return new ApiError(529, "overloaded_error", "Overloaded");
    }

    static Turn disconnect() {
        return new Disconnect();
    }
}
