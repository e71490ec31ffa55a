package dev.agentbox.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.GivenSecrets;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretSetsTest {

    @TempDir Path root;

    private SecretSets sets() {
        return new SecretSets(Optional.of(root));
    }

    private Path set(String tenant, String name) throws IOException {
        return Files.createDirectories(root.resolve(tenant).resolve(name));
    }

    @Test
    void aSetIsOneFilePerVariableReadExactly() throws IOException {
        Path gh = set("alpha", "github");
        Files.writeString(gh.resolve("GIT_TOKEN"), "ghp_abc\n");
        Files.writeString(gh.resolve("GIT_USERNAME"), "bot");

        assertThat(sets().read("alpha", "github").plain())
                .isEqualTo(Map.of("GIT_TOKEN", "ghp_abc\n", "GIT_USERNAME", "bot"));
    }

    @Test
    void aMountedKubernetesSecretIsReadThroughItsDataLinks() throws IOException {
        Path set = set("alpha", "model");
        Path data = Files.createDirectories(set.resolve("..2026_12_01"));
        Files.writeString(data.resolve("ANTHROPIC_API_KEY"), "sk-1");
        Files.createSymbolicLink(set.resolve("..data"), Path.of("..2026_12_01"));
        Files.createSymbolicLink(
                set.resolve("ANTHROPIC_API_KEY"), Path.of("..data/ANTHROPIC_API_KEY"));

        assertThat(sets().read("alpha", "model").plain())
                .isEqualTo(Map.of("ANTHROPIC_API_KEY", "sk-1"));
    }

    @Test
    void aTenantCannotReachAnotherTenantsSetByName() throws IOException {
        Files.writeString(set("beta", "github").resolve("GIT_TOKEN"), "beta-secret");

        assertRefused(() -> sets().read("alpha", "github"), "names no secret set");
        assertRefused(() -> sets().read("alpha", "../beta/github"), "must be 1-128 characters");
        assertRefused(() -> sets().read("alpha", ".."), "must be 1-128 characters");
    }

    @Test
    void aLinkLeadingOutOfTheSetIsRefused() throws IOException {
        Path other = Files.writeString(set("beta", "github").resolve("GIT_TOKEN"), "beta-secret");
        Files.createSymbolicLink(set("alpha", "github").resolve("GIT_TOKEN"), other);

        assertThatThrownBy(() -> sets().read("alpha", "github"))
                .isInstanceOf(ProblemException.class)
                .hasMessageContaining("is not a file of the set")
                .hasMessageNotContaining("beta-secret")
                .hasMessageNotContaining(root.toString());
    }

    @Test
    void aSetLinkedOutOfTheTenantsDirectoryIsRefused() throws IOException {
        Files.writeString(set("beta", "github").resolve("GIT_TOKEN"), "beta-secret");
        Files.createDirectories(root.resolve("alpha"));
        Files.createSymbolicLink(
                root.resolve("alpha").resolve("github"), Path.of("../beta/github"));
        assertRefused(() -> sets().read("alpha", "github"), "names no secret set");

        Path outside = Files.createTempDirectory("outside-root");
        Files.writeString(outside.resolve("KEY"), "host");
        Files.createSymbolicLink(root.resolve("alpha").resolve("host"), outside);
        assertRefused(() -> sets().read("alpha", "host"), "names no secret set");
    }

    @Test
    void entriesThatAreNotVariablesOrTooLargeOrBinaryAreRefused() throws IOException {
        Path bad = set("alpha", "bad-name");
        Files.writeString(bad.resolve("not-a-var"), "x");
        assertRefused(() -> sets().read("alpha", "bad-name"), "not a variable name");

        Path big = set("alpha", "big");
        Files.write(big.resolve("BIG"), new byte[SecretSets.MAX_VALUE_BYTES + 1]);
        assertRefused(() -> sets().read("alpha", "big"), "larger than");

        Path nul = set("alpha", "nul");
        Files.write(nul.resolve("NUL"), "a\0b".getBytes(StandardCharsets.UTF_8));
        assertRefused(() -> sets().read("alpha", "nul"), "without NUL");

        Path dir = set("alpha", "dir");
        Files.createDirectories(dir.resolve("SUB"));
        assertRefused(() -> sets().read("alpha", "dir"), "is not a file of the set");
    }

    @Test
    void tooManyVariablesAreRefused() throws IOException {
        Path many = set("alpha", "many");
        for (int i = 0; i <= SecretSets.MAX_VARIABLES; i++) {
            Files.writeString(many.resolve("V" + i), "x");
        }
        assertRefused(() -> sets().read("alpha", "many"), "more than");
    }

    @Test
    void aVariableWithABrokerHostsFileBesideItIsBrokeredToThoseHosts() throws IOException {
        Path model = set("alpha", "model");
        Files.writeString(model.resolve("ANTHROPIC_API_KEY"), "sk-1");
        Files.writeString(
                model.resolve("ANTHROPIC_API_KEY.broker-hosts"),
                "API.Anthropic.com\r\n\nmodel.test\n");
        Files.writeString(model.resolve("GIT_TOKEN"), "ghp");

        GivenSecrets read = sets().read("alpha", "model");

        assertThat(read.plain()).isEqualTo(Map.of("GIT_TOKEN", "ghp"));
        assertThat(read.brokered()).containsOnlyKeys("ANTHROPIC_API_KEY");
        assertThat(read.brokered().get("ANTHROPIC_API_KEY").value()).isEqualTo("sk-1");
        assertThat(read.brokered().get("ANTHROPIC_API_KEY").hosts())
                .containsExactly("api.anthropic.com", "model.test");
    }

    @Test
    void badBrokerHostsFilesAreRefused() throws IOException {
        Path lone = set("alpha", "lone");
        Files.writeString(lone.resolve("KEY.broker-hosts"), "model.test\n");
        assertRefused(() -> sets().read("alpha", "lone"), "lies beside no variable KEY");

        Path wild = set("alpha", "wild");
        Files.writeString(wild.resolve("KEY"), "v");
        Files.writeString(wild.resolve("KEY.broker-hosts"), "model.test\n*.model.test\n");
        assertRefused(() -> sets().read("alpha", "wild"), "line 2 is not one exact host name");

        Path empty = set("alpha", "empty");
        Files.writeString(empty.resolve("KEY"), "v");
        Files.writeString(empty.resolve("KEY.broker-hosts"), "\n");
        assertRefused(() -> sets().read("alpha", "empty"), "must name 1 to 16 hosts");

        Path twice = set("alpha", "twice");
        Files.writeString(twice.resolve("KEY"), "v");
        Files.writeString(twice.resolve("KEY.broker-hosts"), "a.test\nA.test\n");
        assertRefused(() -> sets().read("alpha", "twice"), "line 2 repeats a host");
    }

    @Test
    void withoutADirectoryEveryNamedSetIsRefused() {
        assertRefused(() -> new SecretSets(Optional.empty()).read("alpha", "github"), "keeps none");
    }

    private static void assertRefused(Runnable read, String detail) {
        assertThatThrownBy(read::run)
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> {
                            assertThat(e.code()).isEqualTo(ProblemCode.INVALID_REQUEST);
                            assertThat(e.extensions())
                                    .containsEntry("field", "forwardedProps.agentbox.secretSet");
                        })
                .hasMessageContaining(detail);
    }
}
