package dev.agentbox.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.sandbox.spi.ImageAllowlist;
import dev.agentbox.testing.MapConfig;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;

/** The Docker provider's settings: read from configuration, and derived by their builders. */
class DockerSettingsTest {

    /** A configuration holding only {@code values}, converted as MicroProfile Config would. */
    private static Config config(Map<String, String> values) {
        return MapConfig.of(values);
    }

    @Test
    void noConfigurationIsTheDefaultsAndEachKeyChangesOnlyItsOwnField() {
        assertThat(DockerSettings.fromConfig(config(Map.of())))
                .isEqualTo(DockerSettings.defaults());
        DockerSettings read =
                DockerSettings.fromConfig(
                        config(
                                Map.of(
                                        "agentbox.docker.image", "agentbox/sandbox:busybox",
                                        "agentbox.docker.stop-grace-seconds", "7",
                                        "agentbox.docker.read-only-root", "true",
                                        "agentbox.docker.user", " ")));
        assertThat(read)
                .isEqualTo(
                        DockerSettings.builder()
                                .image("agentbox/sandbox:busybox")
                                .stopGrace(Duration.ofSeconds(7))
                                .hardening(
                                        DockerSettings.Hardening.builder()
                                                .readOnlyRoot(true)
                                                .build())
                                .build());
    }

    @Test
    void aCopyDerivedFromSettingsKeepsEveryFieldItDoesNotSet() {
        DockerSettings base =
                DockerSettings.builder()
                        .host("tcp://engine:2375")
                        .defaultMemoryMb(512)
                        .channel(ChannelSettings.disabled())
                        .hardening(DockerSettings.Hardening.builder().nofile(1024).build())
                        .build();
        DockerSettings derived = base.toBuilder().publishHost("0.0.0.0").build();
        assertThat(derived.publishHost()).isEqualTo("0.0.0.0");
        assertThat(derived.toBuilder().publishHost(base.publishHost()).build()).isEqualTo(base);
        DockerSettings.Hardening h = base.hardening().toBuilder().user("65534:65534").build();
        assertThat(h.nofile()).isEqualTo(1024);
        assertThat(h.user()).hasValue("65534:65534");
        assertThat(DockerSettings.Hardening.defaults().toBuilder().build())
                .isEqualTo(DockerSettings.Hardening.defaults());
    }

    @Test
    void anAllowlistNamingASnapshotImageIsRefused() {
        assertThatThrownBy(
                        () ->
                                DockerSettings.builder()
                                        .hardening(
                                                DockerSettings.Hardening.builder()
                                                        .images(
                                                                new ImageAllowlist(
                                                                        Set.of(
                                                                                "agentbox/snapshot:x")))
                                                        .build())
                                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("snapshot");
    }
}
