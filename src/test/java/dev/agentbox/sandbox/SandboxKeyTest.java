package dev.agentbox.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

class SandboxKeyTest {

    private static final String IMAGE = "agentbox/sandbox:bookworm";
    private final SandboxSpecParser parser = new SandboxSpecParser(1_800_000, false);

    private static final String BASE =
            """
            {"definitionId":"repo-agent","provider":"docker","threadId":"t-1",
             "workspace":{"source":{"type":"git","url":"git://host/repo.git","ref":"main","depth":1},
                          "setup":["npm ci",["npm run build","npm run lint"],"echo done"],
                          "env":{"CI":"1","A":"2"},"secrets":{"API_KEY":"s3cret"}},
             "policy":{"network":"none","memoryMb":2048,"cpus":1.0,"pids":512},
             "lifecycle":{"reuse":"thread","snapshot":"after-setup","keepAliveMs":1800000}}""";

    private String key(String tenant, String json) {
        return SandboxKey.of(tenant, parser.parse(read(json)), IMAGE);
    }

    private static JsonObject read(String json) {
        return Json.createReader(new StringReader(json)).readObject();
    }

    /** WS-09: the key is stable for identical inputs. */
    @Test
    void sameInputsGiveTheSameKeyWhateverTheMemberOrder() {
        String reordered =
                """
                {"lifecycle":{"keepAliveMs":1800000,"snapshot":"after-setup","reuse":"thread"},
                 "policy":{"pids":512,"cpus":1,"memoryMb":2048,"network":"none"},
                 "workspace":{"secrets":{"API_KEY":"s3cret"},"env":{"A":"2","CI":"1"},
                              "setup":["npm ci",["npm run build","npm run lint"],"echo done"],
                              "source":{"depth":1,"ref":"main","url":"git://host/repo.git","type":"git"}},
                 "threadId":"t-1","provider":"docker","definitionId":"repo-agent"}""";
        assertThat(key("tenant-a", BASE))
                .isEqualTo(key("tenant-a", reordered))
                .matches("[0-9a-f]{64}");
    }

    /** WS-04: secrets alone do not change the key. */
    @Test
    void secretsAndKeepAliveDoNotChangeTheKey() {
        assertThat(key("tenant-a", BASE.replace("s3cret", "other")))
                .isEqualTo(key("tenant-a", BASE.replace("\"API_KEY\":\"s3cret\"", "")))
                .isEqualTo(
                        key(
                                "tenant-a",
                                BASE.replace("\"keepAliveMs\":1800000", "\"keepAliveMs\":5000")))
                .isEqualTo(key("tenant-a", BASE));
    }

    /**
     * WS-03, WS-09: setup, source ref, image and policy change the key, and so do thread,
     * definition, provider and tenant.
     */
    @Test
    void everyIdentityInputChangesTheKey() {
        String base = key("tenant-a", BASE);
        assertThat(key("tenant-b", BASE)).isNotEqualTo(base);
        assertThat(key("tenant-a", BASE.replace("\"t-1\"", "\"t-2\""))).isNotEqualTo(base);
        assertThat(key("tenant-a", BASE.replace("repo-agent", "other-agent"))).isNotEqualTo(base);
        assertThat(
                        key(
                                "tenant-a",
                                BASE.replace("\"provider\":\"docker\"", "\"provider\":\"local\"")))
                .isNotEqualTo(base);
        assertThat(key("tenant-a", BASE.replace("\"ref\":\"main\"", "\"ref\":\"dev\"")))
                .isNotEqualTo(base);
        assertThat(key("tenant-a", BASE.replace("echo done", "echo fin"))).isNotEqualTo(base);
        assertThat(key("tenant-a", BASE.replace("\"CI\":\"1\"", "\"CI\":\"0\"")))
                .isNotEqualTo(base);
        assertThat(key("tenant-a", BASE.replace("\"pids\":512", "\"pids\":256")))
                .isNotEqualTo(base);
        assertThat(key("tenant-a", BASE.replace("\"network\":\"none\"", "\"network\":\"bridge\"")))
                .isNotEqualTo(base);
        assertThat(SandboxKey.of("tenant-a", parser.parse(read(BASE)), "agentbox/sandbox:busybox"))
                .isNotEqualTo(base);
    }

    @Test
    void definitionReuseIgnoresTheThreadAndNoneReuseIsAlwaysNew() {
        String shared = BASE.replace("\"reuse\":\"thread\"", "\"reuse\":\"definition\"");
        assertThat(key("tenant-a", shared))
                .isEqualTo(key("tenant-a", shared.replace("\"t-1\"", "\"t-2\"")));
        String none = BASE.replace("\"reuse\":\"thread\"", "\"reuse\":\"none\"");
        assertThat(key("tenant-a", none)).isNotEqualTo(key("tenant-a", none));
    }

    /**
     * Keys of specs without egress rules, computed before egress existed: an upgrade must resume
     * every sandbox it finds, so these documents may never change.
     */
    @Test
    void keysOfSpecsWithoutEgressRulesAreThoseOfEarlierReleases() {
        assertThat(key("tenant-a", "{}"))
                .isEqualTo("e1c54fec7782598405a0c2f62c56d75b9833e44a7260926b765db5fbd81a7bd8");
        assertThat(key("tenant-a", BASE))
                .isEqualTo("5e5b91bd5b7a9ad158f968fcb7febfef2930fe49bfc92fa9a89c96c5297afcbb");
        assertThat(
                        key(
                                "tenant-a",
                                "{\"definitionId\":\"web\","
                                        + "\"policy\":{\"network\":\"bridge\",\"ports\":[8080,5173]}}"))
                .isEqualTo("efb31dbc358c94373d46a008b2cf21fdd3524a82bdaa58d84a9496986e448479");
    }

    private static final String EGRESS =
            """
            {"definitionId":"repo-agent",
             "policy":{"network":"egress",
                       "egress":{"allow":["api.anthropic.com","*.npmjs.org","git.example.com:8443"],
                                 "deny":["private.npmjs.org"]}}}""";

    @Test
    void theSameEgressRulesGiveTheSameKeyAndOtherRulesAnother() {
        String base = key("tenant-a", EGRESS);
        assertThat(key("tenant-a", EGRESS)).isEqualTo(base);
        assertThat(key("tenant-a", EGRESS.replace("git.example.com:8443", "git.example.com")))
                .isNotEqualTo(base);
        assertThat(key("tenant-a", EGRESS.replace(",\"*.npmjs.org\"", ""))).isNotEqualTo(base);
        assertThat(key("tenant-a", EGRESS.replace("private.npmjs.org", "secret.npmjs.org")))
                .isNotEqualTo(base);
        // order is kept: the caller's list is what the key names
        assertThat(
                        key(
                                "tenant-a",
                                EGRESS.replace(
                                        "\"api.anthropic.com\",\"*.npmjs.org\"",
                                        "\"*.npmjs.org\",\"api.anthropic.com\"")))
                .isNotEqualTo(base);
        // the same entry denied instead of allowed is another policy
        assertThat(
                        key(
                                "tenant-a",
                                EGRESS.replace("\"deny\":[\"private.npmjs.org\"]", "\"deny\":[]")))
                .isNotEqualTo(base);
    }

    @Test
    void spellingVariantsOfAnEntryAreOneKey() {
        assertThat(
                        key(
                                "tenant-a",
                                EGRESS.replace("api.anthropic.com", "API.Anthropic.com.")
                                        .replace("*.npmjs.org", "*.NPMJS.org")))
                .isEqualTo(key("tenant-a", EGRESS));
    }

    @Test
    void egressWithoutRulesIsAnotherSandboxThanNoNetwork() {
        String none = key("tenant-a", "{\"policy\":{\"network\":\"none\"}}");
        String egress = key("tenant-a", "{\"policy\":{\"network\":\"egress\"}}");
        assertThat(egress)
                .isNotEqualTo(none)
                .isEqualTo(
                        key(
                                "tenant-a",
                                "{\"policy\":{\"network\":\"egress\","
                                        + "\"egress\":{\"allow\":[],\"deny\":[]}}}"));
    }

    @Test
    void onlyAnEgressPolicysDocumentHasAnEgressMember() {
        assertThat(
                        SandboxKey.document("tenant-a", parser.parse(read(BASE)), IMAGE)
                                .getJsonObject("policy"))
                .doesNotContainKey("egress");
        assertThat(
                        SandboxKey.document("tenant-a", parser.parse(read(EGRESS)), IMAGE)
                                .getJsonObject("policy")
                                .getJsonObject("egress")
                                .toString())
                .isEqualTo(
                        "{\"allow\":[\"api.anthropic.com\",\"*.npmjs.org\",\"git.example.com:8443\"],"
                                + "\"deny\":[\"private.npmjs.org\"]}");
    }
}
