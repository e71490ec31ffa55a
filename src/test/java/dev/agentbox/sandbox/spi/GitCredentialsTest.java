package dev.agentbox.sandbox.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.SandboxSpecParser;
import jakarta.json.Json;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

class GitCredentialsTest {

    @Test
    void theEnsureParserRefusesACloneUrlWithCredentialsNamingTheFieldAndNotTheSecret() {
        String body =
                "{\"workspace\":{\"source\":{\"type\":\"git\",\"url\":\"https://u:ghp_T0KEN@git.example/r.git\"}}}";
        assertThatThrownBy(
                        () ->
                                new SandboxSpecParser(1_800_000, false)
                                        .parse(
                                                Json.createReader(new StringReader(body))
                                                        .readValue()))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> {
                            assertThat(e.status()).isEqualTo(400);
                            assertThat(e.code()).isEqualTo(ProblemCode.INVALID_REQUEST);
                            assertThat(e.extensions())
                                    .containsEntry("field", "workspace.source.url");
                            assertThat(e.detail())
                                    .startsWith("workspace.source.url ")
                                    .doesNotContain("ghp_T0KEN");
                        });
    }

    @Test
    void aPasswordInTheUserinfoIsRefusedOnEveryScheme() {
        assertThat(GitCredentials.problemWith("https://user:ghp_T0KEN@github.example/org/repo.git"))
                .isPresent();
        assertThat(GitCredentials.problemWith("http://user:pw@127.0.0.1:8080/repo.git"))
                .isPresent();
        assertThat(GitCredentials.problemWith("ssh://git:pw@host/repo.git")).isPresent();
        assertThat(GitCredentials.problemWith("git:pw@host:org/repo.git"))
                .as("scp-like")
                .isPresent();
    }

    @Test
    void aBareUserOnHttpIsRefusedBecauseTokensTravelAsUserNames() {
        assertThat(GitCredentials.problemWith("https://ghp_T0KEN@github.example/org/repo.git"))
                .isPresent();
        assertThat(GitCredentials.problemWith("HTTPS://x@host/repo.git")).isPresent();
    }

    @Test
    void theRefusalNeverRepeatsTheUrl() {
        assertThat(GitCredentials.problemWith("https://user:ghp_T0KEN@github.example/r.git"))
                .get()
                .asString()
                .doesNotContain("ghp_T0KEN")
                .doesNotContain("github.example");
    }

    @Test
    void urlsWithoutCredentialsAndSshLoginNamesAreAccepted() {
        assertThat(GitCredentials.problemWith("https://github.example/org/repo.git")).isEmpty();
        assertThat(GitCredentials.problemWith("https://github.example/org/repo@v1.git"))
                .as("@ in the path")
                .isEmpty();
        assertThat(GitCredentials.problemWith("http://127.0.0.1:8080/repo.git")).isEmpty();
        assertThat(GitCredentials.problemWith("git@github.example:org/repo.git")).isEmpty();
        assertThat(GitCredentials.problemWith("ssh://git@github.example/org/repo.git")).isEmpty();
        assertThat(GitCredentials.problemWith("file:///srv/repo.git")).isEmpty();
        assertThat(GitCredentials.problemWith("/srv/repo.git")).isEmpty();
    }

    @Test
    void theHelperNamesVariablesAndHoldsNoValue() {
        assertThat(GitCredentials.HELPER)
                .contains("$GIT_PASSWORD")
                .contains("${GIT_TOKEN")
                .startsWith("!");
    }
}
