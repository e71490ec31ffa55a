package dev.agentbox.sandbox.spi;

import dev.agentbox.problem.ProblemCode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A git command in a sandbox failed: {@code 409 git-failed}, the repository's state (or its
 * remote's answer) stands in the way. The detail carries the operation and the tail of git's
 * message — already redacted of the sandbox's secrets by whoever built it ({@code ExecGit}); the
 * extensions carry the {@code operation}, a {@code reason} a caller can branch on and git's {@code
 * exitCode}.
 */
public final class GitFailedException extends SandboxOperationException {

    /** Why git failed, told from its (C locale) message. */
    public enum Reason {
        /** The directory is not inside a git work tree. */
        NOT_A_REPOSITORY,
        /** No remote to talk to: none configured, an unknown one, or no upstream to pull from. */
        NO_REMOTE,
        /** The remote refused the credentials (or there were none and it wanted some). */
        AUTHENTICATION_FAILED,
        /** The remote refused the push: not a fast-forward, or a hook or protection said no. */
        REJECTED,
        /** The local branch has commits the upstream lacks: a pull cannot fast-forward. */
        NOT_FAST_FORWARD,
        /** Uncommitted changes would be overwritten. */
        LOCAL_CHANGES,
        /** Anything else; the detail has git's message. */
        FAILED;

        /** The spelling in the problem's {@code reason} member, e.g. {@code not-a-repository}. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /**
     * Message fragments by reason, checked in this order: an authentication failure often comes
     * with a "could not read from remote" line, and a rejected push always with "failed to push".
     */
    private static final List<Map.Entry<Reason, List<String>>> SIGNS =
            List.of(
                    Map.entry(Reason.NOT_A_REPOSITORY, List.of("not a git repository")),
                    Map.entry(
                            Reason.AUTHENTICATION_FAILED,
                            List.of(
                                    "authentication failed",
                                    "could not read username",
                                    "could not read password",
                                    "terminal prompts disabled",
                                    "the requested url returned error: 401",
                                    "the requested url returned error: 403",
                                    "permission denied (publickey")),
                    Map.entry(
                            Reason.REJECTED,
                            List.of(
                                    "[rejected]",
                                    "[remote rejected]",
                                    "updates were rejected",
                                    "non-fast-forward")),
                    Map.entry(
                            Reason.NOT_FAST_FORWARD,
                            List.of("not possible to fast-forward", "diverging branches")),
                    Map.entry(
                            Reason.LOCAL_CHANGES,
                            List.of(
                                    "would be overwritten by merge",
                                    "please commit your changes or stash them")),
                    Map.entry(
                            Reason.NO_REMOTE,
                            List.of(
                                    "no configured push destination",
                                    "does not appear to be a git repository",
                                    "no tracking information",
                                    "has no upstream branch",
                                    "no remote repository specified",
                                    "no such remote")));

    private final Reason reason;

    public GitFailedException(String operation, Reason reason, int exitCode, String message) {
        super(
                ProblemCode.GIT_FAILED,
                operation,
                "exit " + exitCode + ": " + message,
                extensions(operation, reason, exitCode));
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }

    /** The reason git's (C locale) output tells of. */
    public static Reason classify(String output) {
        String text = output == null ? "" : output.toLowerCase(Locale.ROOT);
        for (Map.Entry<Reason, List<String>> sign : SIGNS) {
            if (sign.getValue().stream().anyMatch(text::contains)) {
                return sign.getKey();
            }
        }
        return Reason.FAILED;
    }

    private static Map<String, Object> extensions(String operation, Reason reason, int exitCode) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("operation", operation);
        m.put("reason", reason.wireName());
        m.put("exitCode", exitCode);
        return m;
    }
}
