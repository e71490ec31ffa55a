package dev.agentbox.sandbox.spi;

import dev.agentbox.platform.ShellQuote;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * {@link SandboxGit} desugared to {@code git} commands run through a sandbox's exec. A clone takes
 * its credentials from {@link GitCredentials#HELPER}, which needs the sandbox's secrets in the
 * environment: build it on a {@link SecretsHandle}'s processes for that.
 */
public final class ExecGit implements SandboxGit {

    private final SandboxProcesses process;

    public ExecGit(SandboxProcesses process) {
        this.process = process;
    }

    @Override
    public void clone(String url, Optional<String> dir, Optional<String> ref, OptionalInt depth) {
        // The helper answers from the secrets in the command's environment; `-c` before the
        // subcommand applies to this process only (`clone -c` would write it to .git/config),
        // and the empty helper first drops any configured one (e.g. `store`, which would write
        // the token to a file a snapshot keeps). No prompt: a missing token fails at once.
        StringBuilder cmd =
                new StringBuilder(
                        "GIT_TERMINAL_PROMPT=0 git -c credential.helper= -c credential.helper="
                                + ShellQuote.single(GitCredentials.HELPER)
                                + " clone --quiet");
        ref.ifPresent(r -> cmd.append(" --branch ").append(ShellQuote.single(r)));
        depth.ifPresent(d -> cmd.append(" --depth ").append(d));
        cmd.append(" -- ")
                .append(ShellQuote.single(url))
                .append(' ')
                .append(ShellQuote.single(dir.orElse(".")));
        run("git clone", cmd.toString(), Optional.empty());
    }

    @Override
    public String status(Optional<String> dir) {
        return run("git status", "git status --porcelain", dir);
    }

    @Override
    public void add(List<String> paths, Optional<String> dir) {
        StringBuilder cmd = new StringBuilder("git add --");
        paths.forEach(p -> cmd.append(' ').append(ShellQuote.single(p)));
        run("git add", cmd.toString(), dir);
    }

    @Override
    public void commit(String message, Optional<String> dir) {
        run(
                "git commit",
                "git -c user.name=\"${GIT_AUTHOR_NAME:-agentbox}\" -c user.email=\"${GIT_AUTHOR_EMAIL:-agentbox@localhost}\" commit --quiet -m "
                        + ShellQuote.single(message),
                dir);
    }

    @Override
    public String branch(Optional<String> dir) {
        return run("git branch", "git rev-parse --abbrev-ref HEAD", dir).strip();
    }

    private String run(String op, String command, Optional<String> dir) {
        ProcessOptions opts =
                dir.map(ProcessOptions.defaults()::withCwd).orElse(ProcessOptions.defaults());
        ExecResult r = process.exec(command, opts);
        if (r.exitCode() != 0) {
            throw new SandboxOperationException(
                    op, "exit " + r.exitCode() + ": " + r.stderr() + r.stdout());
        }
        return r.stdout();
    }
}
