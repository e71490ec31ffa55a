package dev.agentbox.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.sandbox.SandboxSpec.NoSource;
import dev.agentbox.sandbox.spi.BrokeredSecret;
import dev.agentbox.sandbox.store.SecretNames;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The names a sandbox's record keeps of its secrets: by form, never a value. */
class SecretNamesTest {

    @Test
    void anEnsureRecordsEachSecretsNameByItsForm() {
        SandboxSpec.Workspace w =
                new SandboxSpec.Workspace(
                        new NoSource(),
                        List.of(),
                        Map.of(),
                        Map.of("GITHUB_TOKEN", "ghp", "A", "a"),
                        Map.of("ANTHROPIC_API_KEY", new BrokeredSecret("sk", List.of("h.test"))));

        SecretNames names = SandboxSecrets.names(w);

        assertThat(names.brokered()).containsExactly("ANTHROPIC_API_KEY");
        assertThat(names.plain()).containsExactly("A", "GITHUB_TOKEN");
        assertThat(names.toString()).doesNotContain("ghp").doesNotContain("sk,");
    }

    @Test
    void aPatchMakesANameSetPlainAndForgetsANameRemoved() {
        SecretNames before = SecretNames.of(List.of("K", "B"), List.of("P", "GONE"));

        SecretNames after =
                SandboxSecrets.patched(
                        before,
                        Map.of(
                                "K",
                                Optional.of("v"),
                                "GONE",
                                Optional.empty(),
                                "N",
                                Optional.of("n")));

        assertThat(after.brokered()).containsExactly("B");
        assertThat(after.plain()).containsExactly("K", "N", "P");
    }
}
