package dev.agentbox.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.api.ProblemException;
import dev.agentbox.sandbox.SandboxSpec.GitSource;
import dev.agentbox.sandbox.SandboxSpec.Reuse;
import jakarta.json.Json;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

class SandboxSpecParserTest {

    private final SandboxSpecParser parser = new SandboxSpecParser(1_800_000, false);

    private SandboxSpec parse(String json) {
        return parser.parse(Json.createReader(new StringReader(json)).readValue());
    }

    private void assertInvalid(String json, String field) {
        assertThatThrownBy(() -> parse(json))
                .isInstanceOfSatisfying(ProblemException.class, e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.code()).isEqualTo("invalid-request");
                    assertThat(e.detail()).startsWith(field + " ");
                    assertThat(e.extensions()).containsEntry("field", field);
                });
    }

    @Test
    void anEmptyBodyMeansDefaults() {
        SandboxSpec spec = parse("{}");
        assertThat(spec.provider()).isEqualTo("docker");
        assertThat(spec.definitionId()).isEqualTo("default");
        assertThat(spec.workspace().setup()).isEmpty();
        assertThat(spec.policy().network()).isEqualTo(SandboxSpec.Network.NONE);
        assertThat(spec.lifecycle().reuse()).isEqualTo(Reuse.DEFINITION);
        assertThat(spec.lifecycle().keepAliveMs()).isEqualTo(1_800_000);
    }

    @Test
    void aFullBodyIsParsed() {
        SandboxSpec spec = parse("""
                {"threadId":"t","workspace":{"source":{"type":"git","url":"git://h/r.git","ref":"main","depth":1},
                 "setup":["a",["b","c"]],"secrets":{"K":"v"}},"policy":{"network":"bridge","ports":[8080]},
                 "lifecycle":{"snapshot":"after-setup"}}""");
        assertThat(spec.workspace().source()).isEqualTo(new GitSource("git://h/r.git", java.util.Optional.of("main"), 1));
        assertThat(spec.workspace().setup()).hasSize(2);
        assertThat(spec.workspace().setup().get(1).parallel()).isTrue();
        assertThat(spec.workspace().toString()).doesNotContain("v}").contains("secrets=[K]");
        assertThat(spec.lifecycle().reuse()).isEqualTo(Reuse.THREAD);
        assertThat(spec.lifecycle().snapshot()).isEqualTo(SandboxSpec.SnapshotMode.AFTER_SETUP);
        assertThat(spec.policy().ports()).containsExactly(8080);
    }

    @Test
    void invalidFieldsAreNamed() {
        assertInvalid("[]", "body");
        assertInvalid("{\"provider\":3}", "provider");
        assertInvalid("{\"polcy\":{}}", "polcy");
        assertInvalid("{\"workspace\":{\"setup\":[\"ok\",[1]]}}", "workspace.setup[1][0]");
        assertInvalid("{\"workspace\":{\"setup\":[\"\"]}}", "workspace.setup[0]");
        assertInvalid("{\"workspace\":{\"source\":{\"type\":\"svn\"}}}", "workspace.source.type");
        assertInvalid("{\"workspace\":{\"source\":{\"type\":\"git\"}}}", "workspace.source.url");
        assertInvalid("{\"workspace\":{\"source\":{\"type\":\"git\",\"url\":\"--upload-pack=x\"}}}", "workspace.source.url");
        assertInvalid("{\"workspace\":{\"source\":{\"type\":\"local\",\"path\":\"/etc\"}}}", "workspace.source.type");
        assertInvalid("{\"workspace\":{\"env\":{\"1BAD\":\"x\"}}}", "workspace.env");
        assertInvalid("{\"workspace\":{\"secrets\":{\"K\":1}}}", "workspace.secrets.K");
        assertInvalid("{\"policy\":{\"network\":\"host\"}}", "policy.network");
        assertInvalid("{\"policy\":{\"memoryMb\":1}}", "policy.memoryMb");
        assertInvalid("{\"policy\":{\"cpus\":0}}", "policy.cpus");
        assertInvalid("{\"policy\":{\"ports\":[70000]}}", "policy.ports[0]");
        assertInvalid("{\"lifecycle\":{\"reuse\":\"thread\"}}", "threadId");
        assertInvalid("{\"lifecycle\":{\"reuse\":\"always\"}}", "lifecycle.reuse");
        assertInvalid("{\"lifecycle\":{\"keepAliveMs\":5}}", "lifecycle.keepAliveMs");
    }
}
