package dev.agentbox.sandbox.egress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EgressSettingsTest {

    @Test
    void aPinnedHostNameIsTakenAsTheGatewaysHostsLine() {
        EgressSettings s =
                EgressSettings.defaults().withResolve(Map.of("registry.corp.test", "10.1.2.3"));
        assertThat(s.hostsFile()).isEqualTo("10.1.2.3 registry.corp.test\n");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "*.corp.test",
                "registry.corp.test:443",
                "10.1.2.3",
                "localhost",
                "Registry.corp.test",
                "registry.corp.test.",
                "a..b",
                "-a.test",
                "host.123"
            })
    void aPinnedNameThatIsNoHostNameByTheEntryRuleIsRefused(String name) {
        assertThatThrownBy(() -> EgressSettings.defaults().withResolve(Map.of(name, "10.1.2.3")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("agentbox.egress.resolve");
    }
}
