package dev.agentbox.sandbox.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.testing.MapConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;

/** The provider's MicroProfile Config keys, read as an operator writes them. */
class KubernetesSettingsTest {

    /** A Config of exactly these properties (only the lookups the settings make). */
    private static Config config(Map<String, String> values) {
        return MapConfig.of(values);
    }

    @Test
    void withNothingConfiguredTheProviderIsOffAndUsesTheDefaults() {
        KubernetesSettings s = KubernetesSettings.fromConfig(config(Map.of()));

        assertThat(s).isEqualTo(KubernetesSettings.defaults());
        assertThat(s.enabled()).isFalse();
        assertThat(s.credentials().inCluster()).isTrue();
    }

    @Test
    void everyKeyReachesItsSetting() {
        KubernetesSettings s =
                KubernetesSettings.fromConfig(
                        config(
                                Map.ofEntries(
                                        Map.entry("agentbox.providers.kubernetes.enabled", "true"),
                                        Map.entry("agentbox.kubernetes.namespace", "sb"),
                                        Map.entry("agentbox.kubernetes.credentials", "kubeconfig"),
                                        Map.entry(
                                                "agentbox.kubernetes.kubeconfig",
                                                "/etc/kube/config"),
                                        Map.entry("agentbox.kubernetes.context", "kind-agentbox"),
                                        Map.entry(
                                                "agentbox.kubernetes.image",
                                                "reg.example:5000/sb:1"),
                                        Map.entry("agentbox.kubernetes.ready-timeout-ms", "5000"),
                                        Map.entry(
                                                "agentbox.kubernetes.runtime-class-name", "gvisor"),
                                        Map.entry(
                                                "agentbox.kubernetes.node-selector",
                                                "pool=sb, zone=a"),
                                        Map.entry(
                                                "agentbox.kubernetes.tolerations",
                                                "sb=true:NoSchedule"),
                                        Map.entry("agentbox.kubernetes.run-as-user", "2000"),
                                        Map.entry("agentbox.kubernetes.read-only-root", "true"),
                                        Map.entry("agentbox.kubernetes.default-memory-mb", "1024"),
                                        Map.entry("agentbox.kubernetes.max-cpus", "2"),
                                        Map.entry("agentbox.kubernetes.helper-port", "9000"),
                                        Map.entry(
                                                "agentbox.kubernetes.egress.gateway-ports", "8080"),
                                        Map.entry(
                                                "agentbox.kubernetes.bridge-blocked-cidrs",
                                                "10.0.0.0/8"))));

        assertThat(s.enabled()).isTrue();
        assertThat(s.namespace()).isEqualTo("sb");
        assertThat(s.credentials().inCluster()).isFalse();
        assertThat(s.credentials().kubeconfig()).contains("/etc/kube/config");
        assertThat(s.credentials().context()).contains("kind-agentbox");
        assertThat(s.image()).isEqualTo("reg.example:5000/sb:1");
        assertThat(s.images().allows("reg.example:5000/sb:1")).isTrue();
        assertThat(s.readyTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(s.pods().runtimeClassName()).contains("gvisor");
        assertThat(s.pods().nodeSelector()).isEqualTo(Map.of("pool", "sb", "zone", "a"));
        assertThat(s.pods().tolerations()).containsExactly("sb=true:NoSchedule");
        assertThat(s.pods().runAsUser()).isEqualTo(2000);
        assertThat(s.pods().readOnlyRoot()).isTrue();
        assertThat(s.pods().defaultMemoryMb()).isEqualTo(1024);
        assertThat(s.pods().maxCpus()).isEqualTo(2.0);
        assertThat(s.network().helperPort()).isEqualTo(9000);
        assertThat(s.network().gatewayPorts()).isEqualTo(List.of(8080));
        assertThat(s.network().bridgeBlockedCidrs()).containsExactly("10.0.0.0/8");
    }

    @Test
    void rootMalformedTolerationsAndUnknownCredentialsStopTheStartUp() {
        assertThatThrownBy(
                        () ->
                                KubernetesSettings.fromConfig(
                                        config(Map.of("agentbox.kubernetes.run-as-user", "0"))))
                .hasMessageContaining("run-as-user");
        assertThatThrownBy(
                        () ->
                                KubernetesSettings.fromConfig(
                                        config(Map.of("agentbox.kubernetes.tolerations", "nokey"))))
                .hasMessageContaining("tolerations");
        assertThatThrownBy(
                        () ->
                                KubernetesSettings.fromConfig(
                                        config(Map.of("agentbox.kubernetes.credentials", "token"))))
                .hasMessageContaining("in-cluster or kubeconfig");
        // a blank value is no value: the default selector, never one that selects every pod
        assertThat(
                        KubernetesSettings.fromConfig(
                                        config(Map.of("agentbox.kubernetes.replica-selector", " ")))
                                .network()
                                .replicaSelector())
                .isEqualTo(Map.of("app.kubernetes.io/name", "agentbox"));
    }
}
