package dev.agentbox.run.harness;

import java.util.Optional;
import java.util.function.LongSupplier;

/** The harnesses a run can name ({@code "harness"} in {@code POST /runs}). */
public enum Harness {
    COMMAND("command"),
    CLAUDE_CODE("claude-code"),
    CODEX("codex"),
    ACP("acp");

    private final String wireName;

    Harness(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    /** The harness named {@code name} on the wire, exactly. */
    public static Optional<Harness> of(String name) {
        for (Harness h : values()) {
            if (h.wireName.equals(name)) {
                return Optional.of(h);
            }
        }
        return Optional.empty();
    }

    /** A fresh translator for one translation of one run. */
    public HarnessTranslator translator(String runId, String threadId, LongSupplier timestamps) {
        return translator(runId, threadId, timestamps, AcpPlan.fallback());
    }

    /**
     * A fresh translator for one translation of one run; an {@code acp} run's follows {@code plan}
     * (stored with the run), the others ignore it.
     */
    public HarnessTranslator translator(
            String runId, String threadId, LongSupplier timestamps, AcpPlan plan) {
        return switch (this) {
            case COMMAND -> new CommandTranslator(runId, threadId, timestamps);
            case CLAUDE_CODE -> new ClaudeCodeTranslator(runId, threadId, timestamps);
            case CODEX -> new CodexTranslator(runId, threadId, timestamps);
            case ACP -> new AcpTranslator(runId, threadId, timestamps, plan);
        };
    }
}
