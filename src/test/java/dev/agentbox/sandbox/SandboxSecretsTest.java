package dev.agentbox.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SandboxSecretsTest {

    @Test
    void theSecretsFileReadsBackToTheValuesThatWereWritten() {
        Map<String, String> secrets = new LinkedHashMap<>();
        secrets.put("API_KEY", "s3cr3t-plain");
        secrets.put("QUOTED", "it's a 'quoted' value\\with \\ backslashes");
        secrets.put("MULTI", "line one\nline two\n");
        secrets.put("EMPTY", "");
        assertThat(SandboxSecrets.parse(SandboxSecrets.render(secrets))).isEqualTo(secrets);
    }

    @Test
    void aFileEditedInsideTheSandboxYieldsWhatCanBeReadAndNoError() {
        assertThat(SandboxSecrets.parse("export A='abcd'\nexport B='unterminated\n"))
                .isEqualTo(Map.of("A", "abcd"));
        assertThat(SandboxSecrets.parse("garbage")).isEmpty();
        assertThat(SandboxSecrets.parse("")).isEmpty();
    }
}
