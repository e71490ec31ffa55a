package dev.agentbox.run.harness;

import java.util.Optional;

/**
 * What a CLI harness lets its agent do without asking ({@code "permissionMode"} of a run or an
 * agent definition). The names are Claude Code's {@code --permission-mode} values; {@link
 * AgentCommands} maps them onto each CLI's own flags. The sandbox is the boundary, so the default
 * is {@link #BYPASS_PERMISSIONS}: the agent edits files and runs commands in it freely.
 */
public enum PermissionMode {
    /** Claude Code asks before edits and commands; in print mode nobody answers, so it refuses. */
    DEFAULT("default"),
    /** File edits in the working directories are allowed; commands that change files are not. */
    ACCEPT_EDITS("acceptEdits"),
    /** The agent only plans: it reads and proposes, and changes nothing. */
    PLAN("plan"),
    /** Every tool runs without asking; the sandbox is the only boundary. */
    BYPASS_PERMISSIONS("bypassPermissions");

    /** The mode of a run that names none. */
    public static final PermissionMode FALLBACK = BYPASS_PERMISSIONS;

    private final String wireName;

    PermissionMode(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    /** The mode named {@code name} on the wire, exactly. */
    public static Optional<PermissionMode> of(String name) {
        for (PermissionMode m : values()) {
            if (m.wireName.equals(name)) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    /**
     * The wire names, for error messages: {@code default, acceptEdits, plan, bypassPermissions}.
     */
    public static String names() {
        StringBuilder b = new StringBuilder();
        for (PermissionMode m : values()) {
            if (b.length() > 0) {
                b.append(", ");
            }
            b.append(m.wireName);
        }
        return b.toString();
    }
}
