package dev.agentbox.sandbox.egress;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.sandbox.spi.BrokeredSecret;
import dev.agentbox.sandbox.spi.EgressAudit.Refusal;
import dev.agentbox.sandbox.spi.EgressAudit.Refusals;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a gateway says of a sandbox's refusals and brokered secrets (EG-07, EG-21). */
class DeniedFileTest {

    @Test
    void refusalsAndMissingSecretsAreReadAndOtherShapesSkipped() {
        Refusals r =
                DeniedFile.parse(
                        "120 0\n"
                                + "a.example 443\n"
                                + "api.anthropic.com 443 secret-missing ANTHROPIC_API_KEY\n"
                                + "b.example 80 secret-missing bad;name\n"
                                + "half-writ",
                        40);
        assertThat(r.next()).isEqualTo(120);
        assertThat(r.secretsHeld()).isFalse();
        assertThat(r.refusals())
                .containsExactly(
                        new Refusal("a.example", 443),
                        new Refusal("api.anthropic.com", 443, "ANTHROPIC_API_KEY"));
    }

    @Test
    void aGatewayThatDoesNotSayCountsAsHoldingTheSecrets() {
        assertThat(DeniedFile.parse("7\n", 0).secretsHeld()).isTrue();
        assertThat(DeniedFile.parse("7 1\n", 0).secretsHeld()).isTrue();
        assertThat(DeniedFile.parse("", 5).next()).isEqualTo(5);
    }

    @Test
    void theTransferNamesEachSecretAndGivesNamesOnlyEntriesNoValueAndEveryHost() {
        String p1 = "agentbox-brokered-" + "a".repeat(40);
        String p2 = "agentbox-brokered-" + "b".repeat(40);
        String lines =
                GatewayRules.secretsTransfer(
                        Map.of(
                                p1,
                                new BrokeredSecret("v", List.of("api.example.com"))
                                        .named("API_KEY")),
                        Map.of(p1, "API_KEY", p2, "OTHER_KEY", "not-a-placeholder", "X"));
        assertThat(lines.lines())
                .containsExactlyInAnyOrder(
                        p1 + " api.example.com dg== API_KEY", p2 + " * - OTHER_KEY");
    }
}
