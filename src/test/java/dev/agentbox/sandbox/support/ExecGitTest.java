package dev.agentbox.sandbox.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.platform.Redactor;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.GitCredentials;
import dev.agentbox.sandbox.spi.GitFailedException;
import dev.agentbox.sandbox.spi.GitStatus;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxProcess;
import dev.agentbox.sandbox.spi.SandboxProcesses;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** The commands {@link ExecGit} runs, and how it turns a failing one into a problem. */
class ExecGitTest {

    private static final String TOKEN = "ghp_T0KEN-value-1234";

    /** Records each command and answers with a fixed result. */
    private static final class Recording implements SandboxProcesses {
        final List<String> commands = new ArrayList<>();
        final List<ProcessOptions> options = new ArrayList<>();
        ExecResult answer = new ExecResult("", "", 0, false);

        @Override
        public ExecResult exec(String command, ProcessOptions o) {
            commands.add(command);
            options.add(o);
            return answer;
        }

        @Override
        public SandboxProcess spawn(String command, ProcessOptions o) {
            throw new UnsupportedOperationException();
        }
    }

    private final Recording sandbox = new Recording();
    private final ExecGit git = new ExecGit(sandbox, () -> Redactor.of(List.of(TOKEN)));

    @Test
    void pullAndPushGiveTheCredentialHelperForTheCommandOnlyWithoutAPromptOrAValue() {
        git.pull(Optional.of("repo"));
        git.push(Optional.empty());

        String helper = "'" + GitCredentials.HELPER.replace("'", "'\\''") + "'";
        assertThat(sandbox.commands.get(0))
                .isEqualTo(
                        "GIT_TERMINAL_PROMPT=0 LC_ALL=C git -c credential.helper= -c credential.helper="
                                + helper
                                + " pull --ff-only --no-rebase --quiet");
        assertThat(sandbox.commands.get(1))
                .isEqualTo(
                        "GIT_TERMINAL_PROMPT=0 LC_ALL=C git -c credential.helper= -c credential.helper="
                                + helper
                                + " -c push.autoSetupRemote=true push --quiet");
        assertThat(sandbox.options.get(0).cwd()).contains("repo");
        assertThat(sandbox.options.get(1).cwd()).isEmpty();
        assertThat(sandbox.commands)
                .allSatisfy(c -> assertThat(c).doesNotContain("config").doesNotContain(TOKEN));
    }

    @Test
    void cloneKeepsTheHelperBeforeTheSubcommandSoNothingIsWrittenToGitConfig() {
        git.clone(
                "https://git.example/r.git",
                Optional.of("src"),
                Optional.of("dev"),
                OptionalInt.of(1));

        assertThat(sandbox.commands.get(0))
                .startsWith(
                        "GIT_TERMINAL_PROMPT=0 LC_ALL=C git -c credential.helper= -c credential.helper='")
                .endsWith(
                        " clone --quiet --branch 'dev' --depth 1 -- 'https://git.example/r.git' 'src'");
    }

    @Test
    void statusReadsPorcelainVersionTwoInTheGivenDirectory() {
        sandbox.answer =
                new ExecResult("# branch.oid 1234\0# branch.head main\0? new.txt\0", "", 0, false);

        GitStatus s = git.statusOf(Optional.of("repo"));

        assertThat(sandbox.commands.get(0))
                .isEqualTo("LC_ALL=C git status --porcelain=v2 --branch -z");
        assertThat(sandbox.options.get(0).cwd()).contains("repo");
        assertThat(s.branch()).contains("main");
        assertThat(s.entries()).extracting(GitStatus.Entry::path).containsExactly("new.txt");
    }

    @Test
    void aRejectedPushIsAGitFailedProblemWithItsReasonAndGitsMessageRedacted() {
        sandbox.answer =
                new ExecResult(
                        "",
                        "To https://git.example/r.git\n ! [rejected]        main -> main (fetch first)\n"
                                + "error: failed to push some refs to 'https://x-access-token:"
                                + TOKEN
                                + "@git.example/r.git'\n",
                        1,
                        false);

        assertThatThrownBy(() -> git.push(Optional.empty()))
                .isInstanceOfSatisfying(
                        GitFailedException.class,
                        e -> {
                            assertThat(e.code()).isEqualTo(ProblemCode.GIT_FAILED);
                            assertThat(e.status()).isEqualTo(409);
                            assertThat(e.reason()).isEqualTo(GitFailedException.Reason.REJECTED);
                            assertThat(e.extensions())
                                    .containsEntry("operation", "git push")
                                    .containsEntry("reason", "rejected")
                                    .containsEntry("exitCode", 1);
                            assertThat(e.detail())
                                    .startsWith("git push failed: exit 1: To https://git.example")
                                    .contains("[rejected]")
                                    .contains("x-access-token:***@")
                                    .doesNotContain(TOKEN);
                        });
    }

    @Test
    void theRedactorIsOnlyAskedWhenACommandFails() {
        int[] asked = {0};
        ExecGit counting =
                new ExecGit(
                        sandbox,
                        () -> {
                            asked[0]++;
                            return Redactor.none();
                        });

        counting.pull(Optional.empty());
        assertThat(asked[0]).isZero();

        sandbox.answer = new ExecResult("", "fatal: not a git repository", 128, false);
        assertThatThrownBy(() -> counting.pull(Optional.empty()))
                .isInstanceOf(GitFailedException.class);
        assertThat(asked[0]).isEqualTo(1);
    }

    @Test
    void gitsMessagesAreToldApartByReason() {
        assertReason(
                "fatal: not a git repository (or any of the parent directories): .git",
                GitFailedException.Reason.NOT_A_REPOSITORY);
        assertReason(
                "fatal: Authentication failed for 'http://198.18.0.2:8080/cgi-bin/git/repo.git/'",
                GitFailedException.Reason.AUTHENTICATION_FAILED);
        assertReason(
                "fatal: could not read Username for 'http://198.18.0.2:8080': terminal prompts disabled",
                GitFailedException.Reason.AUTHENTICATION_FAILED);
        assertReason(
                "fatal: unable to access 'https://git.example/r.git/': The requested URL returned error: 403",
                GitFailedException.Reason.AUTHENTICATION_FAILED);
        assertReason(
                "To /tmp/srv.git\n ! [rejected]        main -> main (fetch first)\n"
                        + "error: failed to push some refs to '/tmp/srv.git'\n"
                        + "hint: Updates were rejected because the remote contains work that you do",
                GitFailedException.Reason.REJECTED);
        assertReason(
                " ! [rejected]        main -> main (non-fast-forward)",
                GitFailedException.Reason.REJECTED);
        assertReason(
                "fatal: Not possible to fast-forward, aborting.",
                GitFailedException.Reason.NOT_FAST_FORWARD);
        assertReason(
                "error: Your local changes to the following files would be overwritten by merge:\n"
                        + "\tf\nPlease commit your changes or stash them before you merge.\nAborting",
                GitFailedException.Reason.LOCAL_CHANGES);
        assertReason(
                "fatal: No configured push destination.\nEither specify the URL from the command-line",
                GitFailedException.Reason.NO_REMOTE);
        assertReason(
                "There is no tracking information for the current branch.\n"
                        + "Please specify which branch you want to merge with.",
                GitFailedException.Reason.NO_REMOTE);
        assertReason(
                "fatal: 'origin' does not appear to be a git repository\n"
                        + "fatal: Could not read from remote repository.",
                GitFailedException.Reason.NO_REMOTE);
        assertReason("sh: 1: git: not found", GitFailedException.Reason.FAILED);
        assertThat(GitFailedException.Reason.NOT_A_REPOSITORY.wireName())
                .isEqualTo("not-a-repository");
    }

    private static void assertReason(String message, GitFailedException.Reason reason) {
        assertThat(GitFailedException.classify(message)).as(message).isEqualTo(reason);
    }
}
