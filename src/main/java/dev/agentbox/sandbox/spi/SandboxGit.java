package dev.agentbox.sandbox.spi;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/** Git in the sandbox, the same on every provider. {@code dir} defaults to the workspace root. */
public interface SandboxGit {

    /** Clones {@code url} into {@code dir} (default: the workspace root, which must be empty). */
    void clone(String url, Optional<String> dir, Optional<String> ref, OptionalInt depth);

    /** {@code git status --porcelain} output. */
    String status(Optional<String> dir);

    void add(List<String> paths, Optional<String> dir);

    void commit(String message, Optional<String> dir);

    /** The current branch name. */
    String branch(Optional<String> dir);
}
