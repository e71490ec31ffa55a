package dev.agentbox.run;

import dev.agentbox.run.harness.AcpPlan;
import dev.agentbox.run.harness.AcpSpec;
import dev.agentbox.run.harness.AgentCommands;
import dev.agentbox.run.harness.BridgeFlags;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.harness.PermissionMode;
import dev.agentbox.run.journal.AgentInvocation;
import dev.agentbox.tool.ApprovalRules;
import dev.agentbox.tool.ClientTool;
import dev.agentbox.tool.bridge.PermissionPrompt;
import dev.agentbox.tool.http.HttpTool;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * A run's tool bridge as stored with the run: the SHA-256 of its token, its HTTP tools and its
 * AG-UI client's tools, {@code {"tokenSha256","tools","clientTools?"}}. Stored rather than looked
 * up from the agent definition, so a server that takes the run over serves the same tools even if
 * the definition changed or was deleted. The token itself is only in the agent's command line in
 * the sandbox; neither a view nor a log line shows it.
 *
 * <p>Which runs get one: a {@code claude-code} run that has tools (HTTP or client) or whose
 * approval rules are not all {@code allow}, and a {@code command} run that has tools (it calls them
 * with the helper's tool client; approval rules apply to those calls). Codex is left without a
 * bridge: it reaches MCP tools only through its own tool search, and has no permission prompt tool.
 */
public final class RunBridge {

    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * A bridge about to be stored with a new run, and the token its agent is started with.
     *
     * @param stored the stored form
     * @param token the token, for the first driver's command line only
     */
    public record Planned(JsonObject stored, String token) {}

    private RunBridge() {}

    /** The bridge of a new run, or empty when it needs none. */
    public static Optional<Planned> plan(
            Harness harness, List<HttpTool> tools, ApprovalRules rules) {
        return plan(harness, tools, List.of(), rules);
    }

    /**
     * As {@link #plan(Harness, List, ApprovalRules)}, with the AG-UI client's tools, stored as
     * {@code clientTools} (only when there are any, so a bridge without them is stored as before).
     */
    public static Optional<Planned> plan(
            Harness harness,
            List<HttpTool> tools,
            List<ClientTool> clientTools,
            ApprovalRules rules) {
        return plan(
                harness,
                tools,
                clientTools,
                rules,
                Optional.empty(),
                PermissionMode.FALLBACK,
                AcpPlan.DEFAULT_CANCEL_GRACE_MS);
    }

    /**
     * As {@link #plan(Harness, List, List, ApprovalRules)}; an {@code acp} run always gets one,
     * with its {@link AcpPlan} stored as {@code acp} (the agent gets the run's MCP server when it
     * has tools or its rules ask).
     */
    public static Optional<Planned> plan(
            Harness harness,
            List<HttpTool> tools,
            List<ClientTool> clientTools,
            ApprovalRules rules,
            Optional<AcpSpec> acp,
            PermissionMode permissionMode,
            long cancelGraceMs) {
        boolean hasTools = !tools.isEmpty() || !clientTools.isEmpty();
        boolean wanted =
                switch (harness) {
                    case CLAUDE_CODE -> hasTools || !allAllow(rules);
                    // Codex has no permission prompt tool: its own commands are never gated, so
                    // only tools of its own make a bridge worth starting.
                    case COMMAND, CODEX -> hasTools;
                    // The ACP client needs the stored plan on every server, tools or not.
                    case ACP -> acp.isPresent();
                };
        if (!wanted) {
            return Optional.empty();
        }
        byte[] raw = new byte[32];
        RANDOM.nextBytes(raw);
        String token = HexFormat.of().formatHex(raw);
        JsonArrayBuilder a = Json.createArrayBuilder();
        tools.forEach(t -> a.add(t.toJson()));
        var stored =
                Json.createObjectBuilder().add("tokenSha256", sha256Hex(token)).add("tools", a);
        acp.ifPresent(
                spec ->
                        stored.add(
                                "acp",
                                spec.plan(
                                                permissionMode,
                                                !allAllow(rules),
                                                hasTools || !allAllow(rules))
                                        .withCancelGrace(cancelGraceMs)
                                        .toJson()));
        if (!clientTools.isEmpty()) {
            JsonArrayBuilder c = Json.createArrayBuilder();
            clientTools.forEach(t -> c.add(t.toJson()));
            stored.add("clientTools", c);
        }
        return Optional.of(new Planned(stored.build(), token));
    }

    /** Whether every rule allows (no rule at all: everything is allowed). */
    static boolean allAllow(ApprovalRules rules) {
        return rules.rules().stream().allMatch(r -> r.decision() == ApprovalRules.Decision.ALLOW);
    }

    /** The stored tools. */
    static List<HttpTool> tools(JsonObject stored) {
        return stored.getJsonArray("tools").stream()
                .map(JsonValue::asJsonObject)
                .map(HttpTool::fromJson)
                .toList();
    }

    /** The stored client tools (none for a bridge stored without them). */
    static List<ClientTool> clientTools(JsonObject stored) {
        if (!(stored.get("clientTools") instanceof jakarta.json.JsonArray a)) {
            return List.of();
        }
        return a.stream().map(JsonValue::asJsonObject).map(ClientTool::fromJson).toList();
    }

    /** The stored SHA-256 of the token, as bytes. */
    static byte[] tokenSha256(JsonObject stored) {
        return HexFormat.of().parseHex(stored.getString("tokenSha256"));
    }

    /**
     * The agent's command line with the run's MCP server ({@link BridgeFlags}); and for Claude
     * Code, when the run's rules are not all {@code allow}, Claude Code's own tools asked for
     * through the bridge's permission prompt tool: {@code bypassPermissions} becomes {@code
     * default}, since bypass never asks. {@code IS_SANDBOX=1} stays as it was (Claude Code checks
     * it only for bypass as root).
     */
    static AgentInvocation invocation(
            Harness harness,
            ApprovalRules rules,
            AgentInvocation agent,
            String mailboxDir,
            String token) {
        AgentInvocation withTools = BridgeFlags.withTools(harness, agent, mailboxDir, token);
        if (harness == Harness.ACP) {
            // The ACP agent gets its MCP server in session/new and asks through
            // session/request_permission: its command line stays as it is.
            return agent;
        }
        if (harness != Harness.CLAUDE_CODE || allAllow(rules)) {
            return withTools;
        }
        String line = withTools.command();
        String bypass = " --permission-mode bypassPermissions";
        String prompt = " --permission-prompt-tool mcp__agentbox__" + PermissionPrompt.TOOL_NAME;
        line =
                line.contains(bypass)
                        ? line.replace(bypass, " --permission-mode default" + prompt)
                        : line.replace(
                                AgentCommands.CLAUDE_CODE, AgentCommands.CLAUDE_CODE + prompt);
        return new AgentInvocation(line, withTools.prompt());
    }

    static String sha256Hex(String token) {
        try {
            return HexFormat.of()
                    .formatHex(
                            MessageDigest.getInstance("SHA-256")
                                    .digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
