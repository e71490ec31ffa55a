package dev.agentbox.sandbox.support;

import dev.agentbox.platform.Redactor;
import dev.agentbox.platform.ShellQuote;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.GitCredentials;
import dev.agentbox.sandbox.spi.GitFailedException;
import dev.agentbox.sandbox.spi.GitStatus;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxGit;
import dev.agentbox.sandbox.spi.SandboxProcesses;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;

/**
 * {@link SandboxGit} desugared to {@code git} commands run through a sandbox's exec. The commands
 * that talk to a remote (clone, pull, push) take their credentials from {@link
 * GitCredentials#HELPER}, which needs the sandbox's secrets in the environment: build it on a
 * {@code SecretsHandle}'s processes for that.
 *
 * <p>Invariants of every remote command:
 *
 * <ul>
 *   <li>the helper is given with {@code -c} before the subcommand, which applies to this process
 *       only ({@code clone -c} would write it to {@code .git/config}); the empty helper first drops
 *       any configured one (e.g. {@code store}, which would write the token to a file a snapshot
 *       keeps); the command line holds variable names, never values;
 *   <li>no prompt ({@code GIT_TERMINAL_PROMPT=0}): a missing or refused token fails at once instead
 *       of waiting for a terminal that is not there;
 *   <li>git speaks the C locale, so its messages can be told apart ({@link
 *       GitFailedException#classify});
 *   <li>a failure's message passes the sandbox's redactor before it leaves: a remote or hook that
 *       echoes the token does not put it into a problem.
 * </ul>
 */
public final class ExecGit implements SandboxGit {

    private static final String REMOTE_GIT =
            "GIT_TERMINAL_PROMPT=0 LC_ALL=C git -c credential.helper= -c credential.helper="
                    + ShellQuote.single(GitCredentials.HELPER);

    private final SandboxProcesses process;
    private final Supplier<Redactor> redactor;

    /** Git on a sandbox without secrets: nothing to redact. */
    public ExecGit(SandboxProcesses process) {
        this(process, Redactor::none);
    }

    /**
     * Git whose failure messages pass {@code redactor} (asked only when a command fails, since
     * reading the sandbox's secrets costs an exec).
     */
    public ExecGit(SandboxProcesses process, Supplier<Redactor> redactor) {
        this.process = process;
        this.redactor = redactor;
    }

    @Override
    public void clone(String url, Optional<String> dir, Optional<String> ref, OptionalInt depth) {
        StringBuilder cmd = new StringBuilder(REMOTE_GIT).append(" clone --quiet");
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
        return run("git status", "LC_ALL=C git status --porcelain", dir);
    }

    @Override
    public GitStatus statusOf(Optional<String> dir) {
        return GitStatus.parse(run("git status", "LC_ALL=C " + GitStatus.COMMAND, dir));
    }

    @Override
    public void add(List<String> paths, Optional<String> dir) {
        StringBuilder cmd = new StringBuilder("LC_ALL=C git add --");
        paths.forEach(p -> cmd.append(' ').append(ShellQuote.single(p)));
        run("git add", cmd.toString(), dir);
    }

    @Override
    public void commit(String message, Optional<String> dir) {
        run(
                "git commit",
                "LC_ALL=C git -c user.name=\"${GIT_AUTHOR_NAME:-agentbox}\" -c user.email=\"${GIT_AUTHOR_EMAIL:-agentbox@localhost}\" commit --quiet -m "
                        + ShellQuote.single(message),
                dir);
    }

    @Override
    public String branch(Optional<String> dir) {
        return run("git branch", "LC_ALL=C git rev-parse --abbrev-ref HEAD", dir).strip();
    }

    @Override
    public void pull(Optional<String> dir) {
        run("git pull", pullCommand(), dir);
    }

    @Override
    public void push(Optional<String> dir) {
        run("git push", pushCommand(), dir);
    }

    /**
     * {@code --ff-only --no-rebase}: whatever the repository's {@code pull.*} settings say, a pull
     * through the API never rewrites local commits, creates a merge or leaves a conflict behind.
     */
    static String pullCommand() {
        return REMOTE_GIT + " pull --ff-only --no-rebase --quiet";
    }

    /**
     * {@code push.autoSetupRemote} (git 2.37+; older gits ignore it and refuse a branch without an
     * upstream) pushes a new branch to {@code origin} under its own name and tracks it.
     */
    static String pushCommand() {
        return REMOTE_GIT + " -c push.autoSetupRemote=true push --quiet";
    }

    private String run(String op, String command, Optional<String> dir) {
        ProcessOptions opts =
                dir.map(ProcessOptions.defaults()::withCwd).orElse(ProcessOptions.defaults());
        ExecResult r = process.exec(command, opts);
        if (r.exitCode() != 0) {
            String message = r.stderr() + r.stdout();
            throw new GitFailedException(
                    op,
                    GitFailedException.classify(message),
                    r.exitCode(),
                    redactor.get().redact(message));
        }
        return r.stdout();
    }
}
