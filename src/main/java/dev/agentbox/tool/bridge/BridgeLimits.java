package dev.agentbox.tool.bridge;

/**
 * Bounds on what a run's sandbox (untrusted) can make the bridge hold or do ({@code
 * agentbox.tools.bridge.*}, docs/operations.md). Past one, the sandbox gets a clear JSON-RPC error
 * or is ignored; the driving server never grows without bound.
 *
 * @param maxSessions relay sessions per run; later ones are ignored
 * @param maxMessageBytes one message (one line of a session's {@code .in}); a longer line is
 *     dropped unread
 * @param maxInFlight tool calls of one run running at once; more get an error at once
 * @param maxCallsPerRun tool calls over a run's whole life, across takeovers
 */
public record BridgeLimits(
        int maxSessions, int maxMessageBytes, int maxInFlight, int maxCallsPerRun) {

    public static BridgeLimits defaults() {
        return new BridgeLimits(8, 1024 * 1024, 16, 1000);
    }

    /** From {@code agentbox.tools.bridge.*}; a key that is absent keeps its default. */
    public static BridgeLimits fromConfig(org.eclipse.microprofile.config.Config c) {
        BridgeLimits d = defaults();
        return new BridgeLimits(
                c.getOptionalValue("agentbox.tools.bridge.max-sessions", Integer.class)
                        .orElse(d.maxSessions()),
                c.getOptionalValue("agentbox.tools.bridge.max-message-bytes", Integer.class)
                        .orElse(d.maxMessageBytes()),
                c.getOptionalValue("agentbox.tools.bridge.max-in-flight", Integer.class)
                        .orElse(d.maxInFlight()),
                c.getOptionalValue("agentbox.tools.bridge.max-calls-per-run", Integer.class)
                        .orElse(d.maxCallsPerRun()));
    }
}
