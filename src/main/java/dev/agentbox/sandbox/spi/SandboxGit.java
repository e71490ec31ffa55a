package dev.agentbox.sandbox.spi;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Git in the sandbox, the same on every provider. {@code dir} defaults to the workspace root.
 *
 * <p>A git command that fails throws {@link GitFailedException} ({@code 409 git-failed}) with git's
 * own message and a {@link GitFailedException.Reason} a caller can branch on.
 */
public interface SandboxGit {

    /** Clones {@code url} into {@code dir} (default: the workspace root, which must be empty). */
    void clone(String url, Optional<String> dir, Optional<String> ref, OptionalInt depth);

    /** {@code git status --porcelain} output. */
    String status(Optional<String> dir);

    /** The status of the repository at {@code dir}: branch, upstream, HEAD and changed paths. */
    GitStatus statusOf(Optional<String> dir);

    void add(List<String> paths, Optional<String> dir);

    void commit(String message, Optional<String> dir);

    /** The current branch name. */
    String branch(Optional<String> dir);

    /**
     * Fast-forwards the current branch to its upstream ({@code git pull --ff-only}): never creates
     * a merge commit or leaves a conflict behind; a branch that has diverged fails with {@link
     * GitFailedException.Reason#NOT_FAST_FORWARD}.
     */
    void pull(Optional<String> dir);

    /**
     * Pushes the current branch to its upstream; a branch without one is pushed to the remote of
     * the same name on {@code origin} and tracks it from then on. A push the remote refuses (not a
     * fast-forward) fails with {@link GitFailedException.Reason#REJECTED}.
     */
    void push(Optional<String> dir);
}
