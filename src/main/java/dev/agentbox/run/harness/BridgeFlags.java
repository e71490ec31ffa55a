package dev.agentbox.run.harness;

import dev.agentbox.platform.ShellQuote;
import dev.agentbox.run.journal.AgentInvocation;
import jakarta.json.Json;

/**
 * How a CLI harness is told of its run's tools: one stdio MCP server, {@code agentbox}, whose
 * command is the sandbox helper's relay on the run's mailbox ({@code agentbox-sandboxd mcp DIR},
 * docs/sandbox-channel.md) with the run's token in its environment. Added only for a run that has
 * tools, so every other command line stays exactly as it was.
 *
 * <ul>
 *   <li>Claude Code: {@code --mcp-config '<json>'} after {@link AgentCommands#CLAUDE_CODE}; it then
 *       sees the tools as {@code mcp__agentbox__<name>}. In {@code bypassPermissions} it calls them
 *       without asking; in the other modes a non-interactive run refuses them as it refuses {@code
 *       Bash}. And {@code MCP_TIMEOUT=}{@value #CLAUDE_MCP_TIMEOUT_MS} in front of {@code claude}:
 *       in print mode Claude Code holds its first model request until its MCP servers have
 *       connected, but only for {@code MCP_TIMEOUT} (30 s by default); past it, it goes on without
 *       the server, and the run's tools are silently missing from the whole first turn. The relay
 *       answers only once the server driving the run reads the mailbox, which under load or across
 *       a takeover can take longer than that, so the CLI waits up to 5 minutes.
 *   <li>Codex: {@code -c mcp_servers.agentbox.…} overrides after {@code codex exec}.
 *   <li>A {@code command} agent: {@code AGENTBOX_MCP_DIR} and {@code AGENTBOX_MCP_TOKEN} exported
 *       before its command, for the helper's tool client ({@code agentbox-sandboxd tool list},
 *       {@code agentbox-sandboxd tool call NAME ARGS}). The command runs in its own subshell
 *       ({@code JournalCommand}), so the variables reach it and nothing after it.
 * </ul>
 */
public final class BridgeFlags {

    /** The relay's path in every sandbox image (the channel helper). */
    public static final String HELPER = "/opt/agentbox/bin/agentbox-sandboxd";

    /**
     * How long Claude Code waits for the run's MCP server before its first model request ({@code
     * MCP_TIMEOUT}, milliseconds).
     */
    public static final long CLAUDE_MCP_TIMEOUT_MS = 300_000;

    private BridgeFlags() {}

    /** {@code invocation} of {@code harness} with the run's MCP server added. */
    public static AgentInvocation withTools(
            Harness harness, AgentInvocation invocation, String mailboxDir, String token) {
        String line = invocation.command();
        String added =
                switch (harness) {
                    case CLAUDE_CODE ->
                            insertBefore(
                                    insertAfter(
                                            line,
                                            AgentCommands.CLAUDE_CODE,
                                            " --mcp-config "
                                                    + ShellQuote.single(
                                                            claudeConfig(mailboxDir, token))),
                                    AgentCommands.CLAUDE_CODE,
                                    "MCP_TIMEOUT=" + CLAUDE_MCP_TIMEOUT_MS + " ");
                    case CODEX -> insertAfter(line, "codex exec", codexFlags(mailboxDir, token));
                    case COMMAND -> commandEnv(mailboxDir, token) + line;
                    case ACP -> line; // its MCP server is named in session/new
                };
        return new AgentInvocation(added, invocation.prompt());
    }

    /** Claude Code's {@code --mcp-config} value. */
    static String claudeConfig(String mailboxDir, String token) {
        return Json.createObjectBuilder()
                .add(
                        "mcpServers",
                        Json.createObjectBuilder()
                                .add(
                                        "agentbox",
                                        Json.createObjectBuilder()
                                                .add("type", "stdio")
                                                .add("command", HELPER)
                                                .add(
                                                        "args",
                                                        Json.createArrayBuilder()
                                                                .add("mcp")
                                                                .add(mailboxDir))
                                                .add(
                                                        "env",
                                                        Json.createObjectBuilder()
                                                                .add("AGENTBOX_MCP_TOKEN", token))))
                .build()
                .toString();
    }

    /** The exports before a command agent's command line. */
    static String commandEnv(String mailboxDir, String token) {
        return "export AGENTBOX_MCP_DIR="
                + ShellQuote.single(mailboxDir)
                + " AGENTBOX_MCP_TOKEN="
                + ShellQuote.single(token)
                + "; ";
    }

    /** Codex's {@code -c} overrides (TOML values) for the same server. */
    static String codexFlags(String mailboxDir, String token) {
        String args = "[\"mcp\"," + toml(mailboxDir) + "]";
        return " -c "
                + ShellQuote.single("mcp_servers.agentbox.command=" + toml(HELPER))
                + " -c "
                + ShellQuote.single("mcp_servers.agentbox.args=" + args)
                + " -c "
                + ShellQuote.single(
                        "mcp_servers.agentbox.env={AGENTBOX_MCP_TOKEN=" + toml(token) + "}");
    }

    private static String toml(String s) {
        return Json.createValue(s).toString(); // a JSON string is a TOML basic string
    }

    private static String insertBefore(String line, String head, String prefix) {
        int at = line.indexOf(head);
        if (at < 0) {
            throw new IllegalArgumentException("not a " + head + " command line: " + line);
        }
        return line.substring(0, at) + prefix + line.substring(at);
    }

    private static String insertAfter(String line, String head, String flags) {
        int at = line.indexOf(head);
        if (at < 0) {
            throw new IllegalArgumentException("not a " + head + " command line: " + line);
        }
        int end = at + head.length();
        return line.substring(0, end) + flags + line.substring(end);
    }
}
