package dev.agentbox.run.harness;

import dev.agentbox.run.harness.AcpMessages.SessionMode;
import dev.agentbox.run.harness.AcpMessages.SessionModeState;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import java.util.List;
import java.util.Optional;

/**
 * What an {@code acp} run's client needs on every server that drives it, stored with the run (the
 * {@code acp} member of its bridge, {@code RunBridge}) so a successor speaks to the agent exactly
 * as the first driver did: which agent, the session mode asked for, the run's permission mode,
 * whether its approval rules ask (then the agent must ask too), whether the agent gets the run's
 * {@code agentbox} MCP server, and the session of the thread to continue.
 *
 * @param agent {@code claude}, {@code codex}, {@code gemini} or {@code custom}
 * @param mode the ACP session mode the run asked for, if any
 * @param permissionMode the run's permission mode (narrows the default mode)
 * @param asks whether the run's approval rules are not all {@code allow}
 * @param mcp whether {@code session/new} names the run's {@code agentbox} MCP server
 * @param continueSession the ACP session of the thread to continue, if any
 * @param cancelGraceMs how long a cancelled run's agent gets after {@code session/cancel} before
 *     its sandbox goes ({@code agentbox.runs.cancel-grace-ms} when the run started)
 */
public record AcpPlan(
        String agent,
        Optional<String> mode,
        PermissionMode permissionMode,
        boolean asks,
        boolean mcp,
        Optional<String> continueSession,
        long cancelGraceMs) {

    /** The default of {@code agentbox.runs.cancel-grace-ms}. */
    public static final long DEFAULT_CANCEL_GRACE_MS = 2000;

    /** As the canonical constructor, with the default cancel grace. */
    public AcpPlan(
            String agent,
            Optional<String> mode,
            PermissionMode permissionMode,
            boolean asks,
            boolean mcp,
            Optional<String> continueSession) {
        this(agent, mode, permissionMode, asks, mcp, continueSession, DEFAULT_CANCEL_GRACE_MS);
    }

    /** Modes, most permissive first, that each permission mode may use (ids the agents offer). */
    private static final List<String> BYPASS =
            List.of("bypassPermissions", "yolo", "full-access", "acceptEdits", "autoEdit", "auto");

    private static final List<String> EDITS = List.of("acceptEdits", "autoEdit", "auto");
    private static final List<String> ASKING = List.of("default", "read-only");
    private static final List<String> PLANNING = List.of("plan", "read-only");

    /** The plan of a run stored without one (never for a run started as {@code acp}). */
    public static AcpPlan fallback() {
        return new AcpPlan(
                "custom",
                Optional.empty(),
                PermissionMode.FALLBACK,
                false,
                false,
                Optional.empty());
    }

    /** This plan continuing {@code sessionId}. */
    public AcpPlan continuing(Optional<String> sessionId) {
        return new AcpPlan(agent, mode, permissionMode, asks, mcp, sessionId, cancelGraceMs);
    }

    /** This plan with {@code ms} as its cancel grace. */
    public AcpPlan withCancelGrace(long ms) {
        return new AcpPlan(agent, mode, permissionMode, asks, mcp, continueSession, ms);
    }

    /**
     * The mode to set once the session is open, or empty to keep the agent's current one.
     *
     * <ul>
     *   <li>A mode the run named is set if the agent offers it, else the run fails ({@link
     *       ModeRefused}).
     *   <li>Otherwise the most permissive mode the agent offers within the run's permission mode
     *       (the sandbox is the boundary); when the run's rules ask, at most an asking mode ({@code
     *       default}), so that the agent's tool calls reach the rules.
     * </ul>
     */
    public Optional<String> modeToSet(SessionModeState modes) throws ModeRefused {
        List<String> offered =
                modes == null || modes.availableModes() == null
                        ? List.of()
                        : modes.availableModes().stream()
                                .map(SessionMode::id)
                                .filter(id -> id != null)
                                .toList();
        String current = modes == null ? null : modes.currentModeId();
        if (mode.isPresent()) {
            if (!offered.contains(mode.get())) {
                throw new ModeRefused(
                        "the agent offers no mode \""
                                + mode.get()
                                + "\""
                                + (offered.isEmpty() ? "" : " (it offers " + offered + ")"));
            }
            return mode.get().equals(current) ? Optional.empty() : mode;
        }
        List<String> wanted =
                asks
                        ? (permissionMode == PermissionMode.PLAN ? PLANNING : ASKING)
                        : switch (permissionMode) {
                            case BYPASS_PERMISSIONS -> BYPASS;
                            case ACCEPT_EDITS -> EDITS;
                            case DEFAULT -> ASKING;
                            case PLAN -> PLANNING;
                        };
        return wanted.stream()
                .filter(offered::contains)
                .findFirst()
                .filter(m -> !m.equals(current));
    }

    /** A mode the run asked for that the agent does not offer. */
    public static final class ModeRefused extends Exception {
        public ModeRefused(String message) {
            super(message, null, false, false);
        }
    }

    public JsonObject toJson() {
        JsonObjectBuilder b =
                Json.createObjectBuilder()
                        .add("agent", agent)
                        .add("permissionMode", permissionMode.wireName())
                        .add("asks", asks)
                        .add("mcp", mcp)
                        .add("cancelGraceMs", cancelGraceMs);
        mode.ifPresent(m -> b.add("mode", m));
        continueSession.ifPresent(s -> b.add("continueSession", s));
        return b.build();
    }

    public static AcpPlan fromJson(JsonObject o) {
        return new AcpPlan(
                o.getString("agent", "custom"),
                optional(o, "mode"),
                PermissionMode.of(o.getString("permissionMode", ""))
                        .orElse(PermissionMode.FALLBACK),
                o.getBoolean("asks", false),
                o.getBoolean("mcp", false),
                optional(o, "continueSession"),
                o.getJsonNumber("cancelGraceMs") == null
                        ? DEFAULT_CANCEL_GRACE_MS
                        : o.getJsonNumber("cancelGraceMs").longValue());
    }

    /** The plan stored in a run's bridge ({@code acp}), or the fallback. */
    public static AcpPlan ofBridge(Optional<JsonObject> bridge) {
        return bridge.filter(b -> b.get("acp") instanceof JsonObject)
                .map(b -> fromJson(b.getJsonObject("acp")))
                .orElseGet(AcpPlan::fallback);
    }

    private static Optional<String> optional(JsonObject o, String name) {
        return o.get(name) instanceof JsonString s ? Optional.of(s.getString()) : Optional.empty();
    }
}
