package dev.agentbox.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.SandboxSpec.GitSource;
import dev.agentbox.sandbox.SandboxSpec.Reuse;
import dev.agentbox.sandbox.spi.EgressRule;
import dev.agentbox.sandbox.spi.ImageAllowlist;
import dev.agentbox.sandbox.spi.SandboxPolicy;
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
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> {
                            assertThat(e.status()).isEqualTo(400);
                            assertThat(e.code()).isEqualTo(ProblemCode.INVALID_REQUEST);
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
        assertThat(spec.policy().network()).isEqualTo(SandboxPolicy.Network.NONE);
        assertThat(spec.lifecycle().reuse()).isEqualTo(Reuse.DEFINITION);
        assertThat(spec.lifecycle().keepAliveMs()).isEqualTo(1_800_000);
    }

    @Test
    void aFullBodyIsParsed() {
        SandboxSpec spec =
                parse(
                        """
                {"threadId":"t","workspace":{"source":{"type":"git","url":"git://h/r.git","ref":"main","depth":1},
                 "setup":["a",["b","c"]],"secrets":{"K":"v"}},"policy":{"network":"bridge","ports":[8080]},
                 "lifecycle":{"snapshot":"after-setup"}}""");
        assertThat(spec.workspace().source())
                .isEqualTo(new GitSource("git://h/r.git", java.util.Optional.of("main"), 1));
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
        assertInvalid(
                "{\"workspace\":{\"source\":{\"type\":\"git\",\"url\":\"--upload-pack=x\"}}}",
                "workspace.source.url");
        assertInvalid(
                "{\"workspace\":{\"source\":{\"type\":\"local\",\"path\":\"/etc\"}}}",
                "workspace.source.type");
        assertInvalid("{\"workspace\":{\"env\":{\"1BAD\":\"x\"}}}", "workspace.env");
        assertInvalid("{\"workspace\":{\"secrets\":{\"K\":1}}}", "workspace.secrets.K");
        assertInvalid("{\"policy\":{\"network\":\"host\"}}", "policy.network");
        assertInvalid("{\"policy\":{\"network\":\"EGRESS\"}}", "policy.network");
        assertInvalid("{\"policy\":{\"memoryMb\":1}}", "policy.memoryMb");
        assertInvalid("{\"policy\":{\"cpus\":0}}", "policy.cpus");
        assertInvalid("{\"policy\":{\"ports\":[70000]}}", "policy.ports[0]");
        assertInvalid("{\"lifecycle\":{\"reuse\":\"thread\"}}", "threadId");
        assertInvalid("{\"lifecycle\":{\"reuse\":\"always\"}}", "lifecycle.reuse");
        assertInvalid("{\"lifecycle\":{\"keepAliveMs\":5}}", "lifecycle.keepAliveMs");
    }

    private void assertAboveCeiling(String json, String field, Number ceiling) {
        assertThatThrownBy(() -> parse(json))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> {
                            assertThat(e.status()).isEqualTo(400);
                            assertThat(e.code()).isEqualTo(ProblemCode.INVALID_REQUEST);
                            assertThat(e.detail()).startsWith(field + " ").contains("ceiling");
                            assertThat(e.extensions())
                                    .containsEntry("field", field)
                                    .containsEntry("ceiling", ceiling);
                        });
    }

    private void assertImageNotAllowed(String image) {
        assertThatThrownBy(() -> parse("{\"image\":" + Json.createValue(image) + "}"))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> {
                            assertThat(e.status()).isEqualTo(400);
                            assertThat(e.code()).isEqualTo(ProblemCode.IMAGE_NOT_ALLOWED);
                            assertThat(e.extensions()).containsEntry("field", "image");
                        });
    }

    @Test
    void onlyExactRepoTagNamesOnTheAllowlistAreAcceptedAsImage() {
        assertThat(parse("{\"image\":\"agentbox/sandbox:bookworm\"}").image())
                .contains("agentbox/sandbox:bookworm");
        assertThat(parse("{\"image\":\"agentbox/sandbox:busybox\"}").image())
                .contains("agentbox/sandbox:busybox");
        // an image id, an id prefix, a digest, a snapshot name, another tag, an implicit :latest, a
        // case variant
        assertImageNotAllowed("4e5e");
        assertImageNotAllowed("sha256:4e5e52d32731");
        assertImageNotAllowed("agentbox/sandbox@sha256:" + "0".repeat(64));
        assertImageNotAllowed("agentbox/snapshot:agentbox-ab-0123-main-1700000000000");
        assertImageNotAllowed("agentbox/sandbox:latest");
        assertImageNotAllowed("agentbox/sandbox");
        assertImageNotAllowed("NotLowercase");
        assertImageNotAllowed("Agentbox/sandbox:bookworm");
        assertImageNotAllowed("docker.io/agentbox/sandbox:bookworm");
        assertInvalid("{\"image\":\"agentbox/sandbox:bookworm\\n\"}", "image");
        assertInvalid("{\"image\":\"agentbox/sandbox:bookworm\\u0000\"}", "image");
    }

    @Test
    void theAllowlistComesFromConfigurationAndRefusesEntriesThatAreNotRepoTagNames() {
        ImageAllowlist custom =
                ImageAllowlist.of("registry.local:5000/team/img:1.2", java.util.Optional.empty());
        assertThat(custom.names())
                .containsExactlyInAnyOrder(
                        "registry.local:5000/team/img:1.2",
                        "agentbox/sandbox:busybox",
                        "agentbox/sandbox:agents");
        ImageAllowlist listed =
                ImageAllowlist.of(
                        "agentbox/sandbox:bookworm",
                        java.util.Optional.of(java.util.List.of(" a/b:1 ", "", "c:2")));
        assertThat(listed.names()).containsExactlyInAnyOrder("a/b:1", "c:2");
        SandboxSpecParser strict =
                new SandboxSpecParser(
                        1_800_000,
                        false,
                        new EnsureRules(listed, ResourceCeilings.defaults(), true));
        assertThat(
                        strict.parse(
                                        Json.createReader(new StringReader("{\"image\":\"c:2\"}"))
                                                .readValue())
                                .image())
                .contains("c:2");
        assertThatThrownBy(
                        () ->
                                strict.parse(
                                        Json.createReader(
                                                        new StringReader(
                                                                "{\"image\":\"agentbox/sandbox:busybox\"}"))
                                                .readValue()))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> assertThat(e.code()).isEqualTo(ProblemCode.IMAGE_NOT_ALLOWED));
        for (String bad :
                new String[] {"abcdef012345", "a/b", "A/b:1", "a/b@sha256:00", "a/b:-x"}) {
            assertThatThrownBy(
                            () ->
                                    ImageAllowlist.of(
                                            "x:1", java.util.Optional.of(java.util.List.of(bad))))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void requestsAboveACeilingAreRefusedNamingTheFieldAndTheCeiling() {
        assertAboveCeiling("{\"policy\":{\"cpus\":200}}", "policy.cpus", 4.0);
        assertAboveCeiling("{\"policy\":{\"memoryMb\":8193}}", "policy.memoryMb", 8192);
        assertAboveCeiling("{\"policy\":{\"pids\":4097}}", "policy.pids", 4096);
        assertAboveCeiling(
                "{\"lifecycle\":{\"keepAliveMs\":86400001}}", "lifecycle.keepAliveMs", 86_400_000L);
        assertAboveCeiling(
                "{\"policy\":{\"network\":\"bridge\",\"ports\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]}}",
                "policy.ports",
                16);
        SandboxSpec atCeiling =
                parse(
                        "{\"policy\":{\"cpus\":4,\"memoryMb\":8192,\"pids\":4096},"
                                + "\"lifecycle\":{\"keepAliveMs\":86400000}}");
        assertThat(atCeiling.policy().memoryMb()).hasValue(8192);
        assertThat(atCeiling.policy().cpus()).hasValue(4.0);
        assertThat(atCeiling.lifecycle().keepAliveMs()).isEqualTo(86_400_000L);
        SandboxSpecParser tight =
                new SandboxSpecParser(
                        1_800_000,
                        false,
                        new EnsureRules(
                                ImageAllowlist.defaults(),
                                new ResourceCeilings(512, 0.5, 64, 60_000, 1),
                                true));
        assertThatThrownBy(
                        () ->
                                tight.parse(
                                        Json.createReader(
                                                        new StringReader(
                                                                "{\"policy\":{\"cpus\":0.75}}"))
                                                .readValue()))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> assertThat(e.extensions()).containsEntry("ceiling", 0.5));
    }

    @Test
    void hugeAndNegativeNumbersAreRefusedInsteadOfWrapping() {
        // 4294967302 would wrap to 6 through JsonNumber.intValue()
        assertInvalid("{\"policy\":{\"memoryMb\":4294967302}}", "policy.memoryMb");
        assertInvalid("{\"policy\":{\"memoryMb\":-1}}", "policy.memoryMb");
        assertInvalid("{\"policy\":{\"pids\":1e30}}", "policy.pids");
        assertInvalid("{\"policy\":{\"pids\":-4294967295}}", "policy.pids");
        assertInvalid("{\"policy\":{\"cpus\":-1}}", "policy.cpus");
        assertInvalid("{\"policy\":{\"cpus\":0.001}}", "policy.cpus");
        assertInvalid("{\"policy\":{\"cpus\":1e400}}", "policy.cpus");
        assertInvalid("{\"policy\":{\"ports\":[4294975488]}}", "policy.ports[0]");
        assertInvalid(
                "{\"policy\":{\"network\":\"bridge\",\"ports\":[8080,8080]}}", "policy.ports[1]");
        assertInvalid(
                "{\"workspace\":{\"source\":{\"type\":\"git\",\"url\":\"git://h/r\",\"depth\":-1}}}",
                "workspace.source.depth");
        assertInvalid(
                "{\"workspace\":{\"source\":{\"type\":\"git\",\"url\":\"git://h/r\",\"depth\":4294967297}}}",
                "workspace.source.depth");
        assertInvalid(
                "{\"lifecycle\":{\"keepAliveMs\":99999999999999999999999}}",
                "lifecycle.keepAliveMs");
        assertInvalid("{\"lifecycle\":{\"keepAliveMs\":-5}}", "lifecycle.keepAliveMs");
    }

    @Test
    void idsArePrintableAndAtMost200Characters() {
        assertThat(parse("{\"threadId\":\"" + "t".repeat(200) + "\"}").threadId())
                .hasValueSatisfying(t -> assertThat(t).hasSize(200));
        assertThat(parse("{\"definitionId\":\"repo agent \u00e9\"}").definitionId())
                .isEqualTo("repo agent é");
        assertInvalid(
                "{\"threadId\":\"" + "t".repeat(300) + "\",\"lifecycle\":{\"reuse\":\"thread\"}}",
                "threadId");
        assertInvalid("{\"definitionId\":\"" + "d".repeat(201) + "\"}", "definitionId");
        assertInvalid("{\"threadId\":\"t\\r\\nINFO forged line\"}", "threadId");
        assertInvalid("{\"definitionId\":\"a\\u0000b\"}", "definitionId");
        assertInvalid("{\"definitionId\":\"a\\u001b[31mred\"}", "definitionId");
        assertInvalid("{\"definitionId\":\"a\\u2028b\"}", "definitionId");
        assertInvalid("{\"threadId\":\"a\\ud800\"}", "threadId");
        assertInvalid("{\"provider\":\"docker\\n\"}", "provider");
    }

    @Test
    void urlsRefsAndPathsRefuseControlCharactersAndCommandsRefuseNul() {
        assertInvalid(
                "{\"workspace\":{\"source\":{\"type\":\"git\",\"url\":\"git://h/r\\n-c core.sshCommand=x\"}}}",
                "workspace.source.url");
        assertInvalid(
                "{\"workspace\":{\"source\":{\"type\":\"git\",\"url\":\"git://h/r\\u0000\"}}}",
                "workspace.source.url");
        assertInvalid(
                "{\"workspace\":{\"source\":{\"type\":\"git\",\"url\":\"git://h/r\",\"ref\":\"main\\r\"}}}",
                "workspace.source.ref");
        assertInvalid(
                "{\"workspace\":{\"setup\":[\"echo a\\u0000rm -rf /\"]}}", "workspace.setup[0]");
        assertInvalid(
                "{\"workspace\":{\"setup\":[[\"ok\",\"x\\u0000\"]]}}", "workspace.setup[0][1]");
        // a multi-line setup script is still a command
        assertThat(parse("{\"workspace\":{\"setup\":[\"set -e\\necho ok\"]}}").workspace().setup())
                .hasSize(1);
    }

    @Test
    void bridgeNetworkingCanBeSwitchedOffEntirely() {
        SandboxSpecParser noBridge =
                new SandboxSpecParser(
                        1_800_000,
                        false,
                        new EnsureRules(
                                ImageAllowlist.defaults(), ResourceCeilings.defaults(), false));
        assertThatThrownBy(
                        () ->
                                noBridge.parse(
                                        Json.createReader(
                                                        new StringReader(
                                                                "{\"policy\":{\"network\":\"bridge\"}}"))
                                                .readValue()))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> {
                            assertThat(e.status()).isEqualTo(400);
                            assertThat(e.code()).isEqualTo(ProblemCode.INVALID_REQUEST);
                            assertThat(e.extensions()).containsEntry("field", "policy.network");
                        });
        assertThat(
                        noBridge.parse(
                                        Json.createReader(
                                                        new StringReader(
                                                                "{\"policy\":{\"network\":\"none\"}}"))
                                                .readValue())
                                .policy()
                                .network())
                .isEqualTo(SandboxPolicy.Network.NONE);
    }

    @Test
    void anEgressPolicyKeepsItsAllowAndDenyEntriesInOrderAsRules() {
        SandboxPolicy policy =
                parse(
                                """
                {"policy":{"network":"egress",
                  "egress":{"allow":["api.anthropic.com","*.npmjs.org","git.example.com:8443"],
                            "deny":["private.npmjs.org"]}}}""")
                        .policy();
        assertThat(policy.network()).isEqualTo(SandboxPolicy.Network.EGRESS);
        assertThat(policy.egress().allow())
                .extracting(EgressRule::text)
                .containsExactly("api.anthropic.com", "*.npmjs.org", "git.example.com:8443");
        assertThat(policy.egress().deny())
                .extracting(EgressRule::text)
                .containsExactly("private.npmjs.org");
        assertThat(policy.egress().permits("registry.npmjs.org", 443)).isTrue();
        assertThat(policy.egress().permits("private.npmjs.org", 443)).isFalse();
    }

    @Test
    void egressWithoutEntriesIsLegalAndReachesOnlyTheOperatorsHosts() {
        assertThat(parse("{\"policy\":{\"network\":\"egress\"}}").policy().egress().isEmpty())
                .isTrue();
        assertThat(
                        parse("{\"policy\":{\"network\":\"egress\",\"egress\":{}}}")
                                .policy()
                                .egress()
                                .isEmpty())
                .isTrue();
        assertThat(
                        parse(
                                        "{\"policy\":{\"network\":\"egress\","
                                                + "\"egress\":{\"allow\":[],\"deny\":null}}}")
                                .policy()
                                .egress()
                                .isEmpty())
                .isTrue();
    }

    @Test
    void egressRulesBelongToTheEgressNetworkOnly() {
        assertInvalid("{\"policy\":{\"egress\":{\"allow\":[\"a.example\"]}}}", "policy.egress");
        assertInvalid("{\"policy\":{\"network\":\"none\",\"egress\":{}}}", "policy.egress");
        assertInvalid(
                "{\"policy\":{\"network\":\"bridge\",\"egress\":{\"allow\":[]}}}", "policy.egress");
        assertThat(parse("{\"policy\":{\"network\":\"none\",\"egress\":null}}").policy())
                .isEqualTo(SandboxPolicy.defaults());
        assertInvalid("{\"policy\":{\"network\":\"egress\",\"ports\":[8080]}}", "policy.ports");
    }

    @Test
    void malformedEgressMembersAreRefusedNamingTheField() {
        String egress = "{\"policy\":{\"network\":\"egress\",\"egress\":%s}}";
        assertInvalid(egress.formatted("[]"), "policy.egress");
        assertInvalid(egress.formatted("{\"allowed\":[]}"), "policy.egress.allowed");
        assertInvalid(egress.formatted("{\"allow\":\"a.example\"}"), "policy.egress.allow");
        assertInvalid(egress.formatted("{\"deny\":{}}"), "policy.egress.deny");
        assertInvalid(egress.formatted("{\"allow\":[\"a.example\",7]}"), "policy.egress.allow[1]");
        assertInvalid(
                egress.formatted("{\"allow\":[\"a.example\",\"b.example\",\"*.com\"]}"),
                "policy.egress.allow[2]");
        assertInvalid(
                egress.formatted("{\"allow\":[\"https://a.example/\"]}"), "policy.egress.allow[0]");
        assertInvalid(egress.formatted("{\"deny\":[\"\"]}"), "policy.egress.deny[0]");
        assertInvalid(egress.formatted("{\"allow\":[\"10.0.0.1\"]}"), "policy.egress.allow[0]");
        assertInvalid(
                egress.formatted("{\"deny\":[\"a.example\",\"[::1]\"]}"), "policy.egress.deny[1]");
    }

    @Test
    void anEntryAppearsOnceAcrossAllowAndDenyWhateverItsSpelling() {
        String egress = "{\"policy\":{\"network\":\"egress\",\"egress\":%s}}";
        assertInvalid(
                egress.formatted(
                        "{\"allow\":[\"api.anthropic.com\",\"x.example\",\"API.Anthropic.com.\"]}"),
                "policy.egress.allow[2]");
        assertInvalid(
                egress.formatted("{\"deny\":[\"*.x.example\",\"*.X.example\"]}"),
                "policy.egress.deny[1]");
        assertInvalid(
                egress.formatted("{\"allow\":[\"x.example\"],\"deny\":[\"X.EXAMPLE\"]}"),
                "policy.egress.deny[0]");
        // the same host on another port is another rule
        assertThat(
                        parse(egress.formatted("{\"allow\":[\"x.example\",\"x.example:8443\"]}"))
                                .policy()
                                .egress()
                                .allow())
                .hasSize(2);
    }

    @Test
    void allowAndDenyTogetherHoldAtMostTheConfiguredNumberOfEntries() {
        StringBuilder many = new StringBuilder();
        for (int i = 0; i <= 64; i++) {
            many.append(i == 0 ? "" : ",").append("\"h").append(i).append(".example\"");
        }
        assertAboveCeiling(
                "{\"policy\":{\"network\":\"egress\",\"egress\":{\"allow\":[" + many + "]}}}",
                "policy.egress.allow",
                64);
        SandboxSpecParser tight = withEgress(new EgressLimits(false, 2));
        String egress = "{\"policy\":{\"network\":\"egress\",\"egress\":%s}}";
        assertThatThrownBy(
                        () ->
                                tight.parse(
                                        read(
                                                egress.formatted(
                                                        "{\"allow\":[\"a.example\",\"b.example\"],"
                                                                + "\"deny\":[\"c.example\"]}"))))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> {
                            assertThat(e.extensions())
                                    .containsEntry("field", "policy.egress.deny")
                                    .containsEntry("ceiling", 2);
                            assertThat(e.detail()).contains("agentbox.egress.max-rules");
                        });
        assertThat(
                        tight.parse(
                                        read(
                                                egress.formatted(
                                                        "{\"allow\":[\"a.example\"],\"deny\":[\"b.example\"]}")))
                                .policy()
                                .egress()
                                .deny())
                .hasSize(1);
    }

    @Test
    void addressesAndBlocksAreAcceptedOnlyWhereTheOperatorAllowsIpLiterals() {
        SandboxSpecParser permissive =
                withEgress(new EgressLimits(true, EgressLimits.DEFAULT_MAX_RULES));
        SandboxPolicy policy =
                permissive
                        .parse(
                                read(
                                        "{\"policy\":{\"network\":\"egress\",\"egress\":"
                                                + "{\"allow\":[\"10.1.2.3:5432\",\"[2001:DB8::0:1]\"],"
                                                + "\"deny\":[\"[fd00::]/8\"]}}}"))
                        .policy();
        assertThat(policy.egress().allow())
                .extracting(EgressRule::text)
                .containsExactly("10.1.2.3:5432", "[2001:db8::1]");
        assertThat(policy.egress().deny())
                .extracting(EgressRule::text)
                .containsExactly("[fd00::]/8");
    }

    private static final String EGRESS_POLICY =
            "\"policy\":{\"network\":\"egress\",\"egress\":{\"allow\":[\"git.example.com\"],"
                    + "\"deny\":[\"blocked.example.com\"]}}";

    private static String brokered(String secret, String policy) {
        return "{\"workspace\":{\"secrets\":{\"KEY\":"
                + secret
                + ",\"PLAIN\":\"p\"}},"
                + policy
                + "}";
    }

    @Test
    void aBrokeredSecretIsKeptApartFromTheSecretsTheSandboxHolds() {
        SandboxSpec spec =
                parse(
                        brokered(
                                "{\"value\":\"sk-1\",\"brokerHosts\":[\"Git.Example.com\"]}",
                                EGRESS_POLICY));
        assertThat(spec.workspace().secrets()).containsOnlyKeys("PLAIN");
        assertThat(spec.workspace().brokered()).containsOnlyKeys("KEY");
        assertThat(spec.workspace().brokered().get("KEY").value()).isEqualTo("sk-1");
        assertThat(spec.workspace().brokered().get("KEY").hosts())
                .containsExactly("git.example.com");
        assertThat(spec.workspace().toString()).doesNotContain("sk-1");
    }

    @Test
    void aBrokeredSecretMayGoToTheOperatorsAlwaysAllowedHosts() {
        SandboxSpec spec =
                parse(
                        brokered(
                                "{\"value\":\"sk-1\",\"brokerHosts\":[\"api.anthropic.com\"]}",
                                "\"policy\":{\"network\":\"egress\"}"));
        assertThat(spec.workspace().brokered().get("KEY").hosts())
                .containsExactly("api.anthropic.com");
    }

    @Test
    void aBrokeredSecretNeedsTheEgressNetwork() {
        assertInvalid(
                brokered(
                        "{\"value\":\"sk-1\",\"brokerHosts\":[\"git.example.com\"]}",
                        "\"policy\":{\"network\":\"bridge\"}"),
                "workspace.secrets.KEY");
        assertInvalid(
                "{\"workspace\":{\"secrets\":{\"KEY\":{\"value\":\"v\",\"brokerHosts\":[\"a.example.com\"]}}}}",
                "workspace.secrets.KEY");
    }

    @Test
    void aBrokeredSecretGoesOnlyWhereTheSandboxMayGo() {
        assertInvalid(
                brokered(
                        "{\"value\":\"sk-1\",\"brokerHosts\":[\"git.example.com\",\"evil.example\"]}",
                        EGRESS_POLICY),
                "workspace.secrets.KEY.brokerHosts[1]");
        assertInvalid(
                brokered(
                        "{\"value\":\"sk-1\",\"brokerHosts\":[\"blocked.example.com\"]}",
                        EGRESS_POLICY),
                "workspace.secrets.KEY.brokerHosts[0]");
    }

    @Test
    void aBrokeredSecretIsWellFormedOrRefusedNamingTheField() {
        assertInvalid(
                brokered("{\"brokerHosts\":[\"git.example.com\"]}", EGRESS_POLICY),
                "workspace.secrets.KEY.value");
        assertInvalid(
                brokered(
                        "{\"value\":\"a\\nb\",\"brokerHosts\":[\"git.example.com\"]}",
                        EGRESS_POLICY),
                "workspace.secrets.KEY.value");
        assertInvalid(
                brokered("{\"value\":\"v\"}", EGRESS_POLICY), "workspace.secrets.KEY.brokerHosts");
        assertInvalid(
                brokered("{\"value\":\"v\",\"brokerHosts\":[]}", EGRESS_POLICY),
                "workspace.secrets.KEY.brokerHosts");
        assertInvalid(
                brokered("{\"value\":\"v\",\"brokerHosts\":[\"*.example.com\"]}", EGRESS_POLICY),
                "workspace.secrets.KEY.brokerHosts[0]");
        assertInvalid(
                brokered(
                        "{\"value\":\"v\",\"brokerHosts\":[\"git.example.com:443\"]}",
                        EGRESS_POLICY),
                "workspace.secrets.KEY.brokerHosts[0]");
        assertInvalid(
                brokered(
                        "{\"value\":\"v\",\"brokerHosts\":[\"git.example.com\"],\"extra\":1}",
                        EGRESS_POLICY),
                "workspace.secrets.KEY.extra");
        assertInvalid(brokered("42", EGRESS_POLICY), "workspace.secrets.KEY");
    }

    private static SandboxSpecParser withEgress(EgressLimits limits) {
        return new SandboxSpecParser(
                1_800_000,
                false,
                new EnsureRules(
                        ImageAllowlist.defaults(), ResourceCeilings.defaults(), true, limits));
    }

    private static jakarta.json.JsonValue read(String json) {
        return Json.createReader(new StringReader(json)).readValue();
    }
}
