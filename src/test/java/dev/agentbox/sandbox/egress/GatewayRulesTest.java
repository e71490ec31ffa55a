package dev.agentbox.sandbox.egress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.sandbox.spi.EgressPolicy;
import dev.agentbox.sandbox.spi.EgressRule;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** The rules files a sandbox's gateway reads (EG-01, EG-02, EG-04). */
class GatewayRulesTest {

    private static final EgressRule NPM =
            new EgressRule(EgressRule.Kind.SUBDOMAINS, "npmjs.org", OptionalInt.empty());
    private static final EgressRule PRIVATE_NPM = EgressRule.host("private.npmjs.org");
    private static final EgressRule GIT =
            new EgressRule(EgressRule.Kind.HOST, "git.example.com", OptionalInt.of(8443));
    private static final EgressRule ANTHROPIC = EgressRule.host("api.anthropic.com");

    @Test
    void theFileNamesItsSandboxThenDeniesThenTheCallersAllowsThenTheOperators() {
        GatewayRules.Files f =
                GatewayRules.render(
                        "agentbox-1234",
                        new EgressPolicy(List.of(NPM, GIT), List.of(PRIVATE_NPM)),
                        List.of(ANTHROPIC));
        assertThat(f.rules())
                .isEqualTo(
                        """
                        # agentbox sandbox agentbox-1234
                        deny host private.npmjs.org 80,443
                        allow sub npmjs.org 80,443
                        allow host git.example.com 8443
                        allow host api.anthropic.com 80,443
                        """);
    }

    @Test
    void addressRulesKeepTheirKindAndNeedNoDns() {
        EgressRule block =
                new EgressRule(EgressRule.Kind.CIDR, "203.0.113.0/24", OptionalInt.of(443));
        EgressRule one = new EgressRule(EgressRule.Kind.IP, "2001:db8::1", OptionalInt.empty());
        GatewayRules.Files f =
                GatewayRules.render(
                        "s", new EgressPolicy(List.of(block, one), List.of()), List.of());
        assertThat(f.rules())
                .contains("allow cidr 203.0.113.0/24 443\n")
                .contains("allow ip 2001:db8::1 80,443\n");
        assertThat(f.dns()).isEmpty();
    }

    @Test
    void dnsNamesAreTheAllowedNamesAndDomainsEachOnceAndNeverADeniedOne() {
        GatewayRules.Files f =
                GatewayRules.render(
                        "s",
                        new EgressPolicy(
                                List.of(NPM, GIT, EgressRule.host("git.example.com")),
                                List.of(PRIVATE_NPM)),
                        List.of(ANTHROPIC));
        assertThat(f.dns()).isEqualTo("*.npmjs.org\ngit.example.com\napi.anthropic.com\n");
    }

    @Test
    void anEmptyPolicyAllowsOnlyTheAlwaysAllowList() {
        GatewayRules.Files f = GatewayRules.render("s", EgressPolicy.empty(), List.of(ANTHROPIC));
        assertThat(f.rules().lines().skip(1))
                .containsExactly("allow host api.anthropic.com 80,443");
    }

    @Test
    void nothingButCheckedValuesCanReachTheFile() {
        EgressRule hostile =
                new EgressRule(
                        EgressRule.Kind.HOST,
                        "x.com 443\nallow cidr 0.0.0.0/0",
                        OptionalInt.empty());
        assertThatThrownBy(
                        () ->
                                GatewayRules.render(
                                        "s",
                                        new EgressPolicy(List.of(hostile), List.of()),
                                        List.of()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> GatewayRules.render("a b", EgressPolicy.empty(), List.of()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> GatewayRules.stem("../../etc/passwd"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(GatewayRules.stem("fd00::7")).isEqualTo("fd00__7");
    }
}
