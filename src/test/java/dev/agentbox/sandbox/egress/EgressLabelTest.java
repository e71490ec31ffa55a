package dev.agentbox.sandbox.egress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.sandbox.spi.EgressPolicy;
import dev.agentbox.sandbox.spi.EgressRule;
import dev.agentbox.sandbox.spi.EgressRule.Kind;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** An egress sandbox's rules survive the trip through its container's label (as for a fork). */
class EgressLabelTest {

    @Test
    void everyKindOfRuleWithAndWithoutAPortComesBackAsItWasInOrder() {
        EgressPolicy policy =
                new EgressPolicy(
                        List.of(
                                EgressRule.host("api.anthropic.com"),
                                new EgressRule(Kind.SUBDOMAINS, "npmjs.org", OptionalInt.empty()),
                                new EgressRule(Kind.HOST, "git.example.com", OptionalInt.of(8443)),
                                new EgressRule(Kind.IP, "10.0.0.1", OptionalInt.of(5432)),
                                new EgressRule(Kind.CIDR, "fd00::/8", OptionalInt.empty())),
                        List.of(EgressRule.host("private.npmjs.org")));

        assertThat(EgressLabel.parse(EgressLabel.of(policy))).isEqualTo(policy);
        assertThat(EgressLabel.parse(EgressLabel.of(EgressPolicy.empty())))
                .isEqualTo(EgressPolicy.empty());
    }

    @Test
    void aLabelThatIsNotOneThisProviderWroteIsRefusedRatherThanReadAsNoRules() {
        for (String bad :
                List.of(
                        "",
                        "[]",
                        "{}",
                        "{\"allow\":[]}",
                        "{\"allow\":{},\"deny\":[]}",
                        "{\"allow\":[{\"kind\":\"HOST\"}],\"deny\":[]}",
                        "{\"allow\":[{\"kind\":\"ANY\",\"value\":\"x\"}],\"deny\":[]}",
                        "{\"allow\":[{\"kind\":\"HOST\",\"value\":7}],\"deny\":[]}",
                        "{\"allow\":[\"api.anthropic.com\"],\"deny\":[]}")) {
            assertThatThrownBy(() -> EgressLabel.parse(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
