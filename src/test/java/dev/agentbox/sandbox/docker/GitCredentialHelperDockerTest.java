package dev.agentbox.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.platform.ShellQuote;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.SandboxSecrets;
import dev.agentbox.sandbox.SecretsHandle;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.testing.NeedsDocker;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A clone's credentials come from the sandbox's secrets through the credential helper, and stay out
 * of the clone. The git server is one the test starts inside the same sandbox (Debian image,
 * network {@code none}): a small HTTP server on loopback that serves a bare repository (git's
 * "dumb" HTTP protocol) only to requests with the expected Basic credentials.
 */
@NeedsDocker
class GitCredentialHelperDockerTest {

    private static final int PORT = 8418;
    private static final String URL = "http://127.0.0.1:" + PORT + "/repo.git";

    /**
     * Serves files under ARGV[1] to requests whose Authorization is exactly "Basic ARGV[2]"; logs
     * each status.
     */
    private static final String SERVER =
            """
            use IO::Socket::INET;
            my ($port, $root, $auth) = @ARGV;
            my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => $port, Listen => 5, ReuseAddr => 1) or die "listen: $!";
            open(my $log, '>>', '/tmp/git-httpd.log'); $log->autoflush(1);
            print $log "listening\\n";
            while (my $c = $s->accept) {
              my $req = <$c>; my %h;
              while (my $l = <$c>) { $l =~ s/\\r?\\n$//; last if $l eq ''; my ($k, $v) = split(/:\\s*/, $l, 2); $h{lc $k} = $v; }
              my (undef, $path) = split(/ /, $req); $path =~ s/\\?.*//;
              if (($h{authorization} || '') ne "Basic $auth") {
                print $log "401 $path\\n";
                print $c "HTTP/1.0 401 Unauthorized\\r\\nWWW-Authenticate: Basic realm=\\"git\\"\\r\\nContent-Length: 0\\r\\n\\r\\n";
              } elsif ($path !~ /\\.\\./ && -f "$root$path" && open(my $fh, '<', "$root$path")) {
                binmode $fh; local $/; my $d = <$fh>;
                print $log "200 $path\\n";
                print $c "HTTP/1.0 200 OK\\r\\nContent-Type: application/octet-stream\\r\\nContent-Length: " . length($d) . "\\r\\n\\r\\n$d";
              } else {
                print $log "404 $path\\n";
                print $c "HTTP/1.0 404 Not Found\\r\\nContent-Length: 0\\r\\n\\r\\n";
              }
              close $c;
            }
            """;

    private DockerSandboxProvider provider;
    private SandboxHandle raw;
    private final String token = "tok-" + UUID.randomUUID();

    @BeforeEach
    void sandboxWithAGitServer() {
        provider =
                new DockerSandboxProvider(
                        DockerSettings.builder().image("agentbox/sandbox:bookworm").build(),
                        new DaemonThreads("test-git-credentials"),
                        Clock.systemUTC());
        raw =
                provider.create(
                        SandboxCreateInput.defaults()
                                .withKey("gitcred-" + UUID.randomUUID(), "tenant-gitcred"));
        ExecResult repo =
                raw.process()
                        .exec(
                                "set -e; mkdir -p /tmp/src && cd /tmp/src && git init -q -b main"
                                        + " && echo hello > README && git add README"
                                        + " && git -c user.name=t -c user.email=t@localhost commit -q -m init"
                                        + " && git clone -q --bare /tmp/src /tmp/srv/repo.git && git -C /tmp/srv/repo.git update-server-info");
        assertThat(repo.exitCode()).as(repo.stderr()).isZero();
        raw.fs().write("/tmp/git-httpd.pl", SERVER);
        String expected =
                Base64.getEncoder()
                        .encodeToString(
                                ("x-access-token:" + token).getBytes(StandardCharsets.UTF_8));
        raw.process()
                .spawn(
                        "exec perl /tmp/git-httpd.pl "
                                + PORT
                                + " /tmp/srv "
                                + ShellQuote.single(expected));
        await().atMost(Duration.ofSeconds(10))
                .until(
                        () ->
                                raw.process()
                                        .exec("cat /tmp/git-httpd.log 2>/dev/null")
                                        .stdout()
                                        .contains("listening"));
    }

    @AfterEach
    void destroy() {
        if (raw != null) {
            raw.destroy();
        }
    }

    @Test
    void aCloneAuthenticatesWithTheGitTokenSecretAndKeepsItOutOfTheClone() {
        SandboxSecrets.install(raw, Map.of("GIT_TOKEN", token));

        new SecretsHandle(raw)
                .git()
                .clone(URL, Optional.of("cloned"), Optional.empty(), OptionalInt.empty());

        assertThat(raw.fs().read("cloned/README")).isEqualTo("hello\n");
        String served = raw.process().exec("cat /tmp/git-httpd.log").stdout();
        assertThat(served)
                .as("the server refused the anonymous request, then served an authenticated one")
                .contains("401 /repo.git/info/refs")
                .contains("200 /repo.git/info/refs");
        ExecResult leftovers =
                raw.process()
                        .exec(
                                "grep -rl "
                                        + ShellQuote.single(token)
                                        + " cloned/.git \"$HOME\" /etc/gitconfig 2>/dev/null; git -C cloned config --list --show-origin");
        assertThat(leftovers.stdout())
                .doesNotContain(token)
                .doesNotContain("credential")
                .contains("remote.origin.url=" + URL);
        assertThat(raw.process().exec("test -e \"$HOME/.git-credentials\"").exitCode())
                .as("no credential store file")
                .isNotZero();
    }

    @Test
    void withoutATokenSecretTheCloneFailsAtOnceInsteadOfPrompting() {
        SandboxSecrets.install(raw, Map.of("API_KEY", "unrelated-value"));

        assertThatThrownBy(
                        () ->
                                new SecretsHandle(raw)
                                        .git()
                                        .clone(
                                                URL,
                                                Optional.of("anon"),
                                                Optional.empty(),
                                                OptionalInt.empty()))
                .isInstanceOf(ProblemException.class);
        assertThat(raw.process().exec("cat /tmp/git-httpd.log").stdout()).doesNotContain("200 ");
    }

    @Test
    void theHelperAnswersWithTheDefaultUserNameOrGitUsernameAndTheToken() {
        SandboxSecrets.install(raw, Map.of("GIT_PASSWORD", token, "GIT_USERNAME", "bot"));

        ExecResult fill =
                new SecretsHandle(raw)
                        .process()
                        .exec(
                                "printf 'protocol=http\\nhost=127.0.0.1\\n\\n' | git -c credential.helper= -c credential.helper="
                                        + ShellQuote.single(
                                                dev.agentbox.sandbox.spi.GitCredentials.HELPER)
                                        + " credential fill");

        assertThat(fill.stdout()).contains("username=bot\n").contains("password=" + token + "\n");
    }
}
