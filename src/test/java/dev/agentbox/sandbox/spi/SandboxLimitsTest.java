package dev.agentbox.sandbox.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.testing.MapConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The exec limits every provider applies, as read from configuration. */
class SandboxLimitsTest {

    @Test
    void noConfigurationIsTheDefaults() {
        assertThat(SandboxLimits.fromConfig(MapConfig.of(Map.of())))
                .isEqualTo(SandboxLimits.defaults());
    }

    @Test
    void theInternalExecDeadlineHasAProviderNeutralKey() {
        SandboxLimits limits =
                SandboxLimits.fromConfig(
                        MapConfig.of(Map.of("agentbox.exec.internal-timeout-ms", "4500")));

        assertThat(limits.internalExecTimeout()).isEqualTo(Duration.ofMillis(4500));
    }

    @Test
    void theFormerDockerNamedKeyStillAppliesAndWinsWhenSet() {
        // The new key always has its default in the configuration file, so an operator's old
        // setting must take precedence or an upgrade would silently drop it.
        SandboxLimits limits =
                SandboxLimits.fromConfig(
                        MapConfig.of(
                                Map.of(
                                        "agentbox.exec.internal-timeout-ms",
                                        "30000",
                                        SandboxLimits.LEGACY_INTERNAL_TIMEOUT_KEY,
                                        "7000")));

        assertThat(limits.internalExecTimeout()).isEqualTo(Duration.ofSeconds(7));
    }

    @Test
    void anOutputCapBelowWhatJournalReadsNeedStopsTheStart() {
        assertThatThrownBy(
                        () ->
                                SandboxLimits.fromConfig(
                                        MapConfig.of(
                                                Map.of(
                                                        "agentbox.exec.max-output-bytes",
                                                        "1048576"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("agentbox.exec.max-output-bytes");
    }
}
