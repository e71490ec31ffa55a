package dev.agentbox.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.sandbox.spi.ImageAllowlist;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;

/** The Docker provider's settings: read from configuration, and derived by their builders. */
class DockerSettingsTest {

    /** A configuration holding only {@code values}, converted as MicroProfile Config would. */
    private static Config config(Map<String, String> values) {
        return (Config)
                Proxy.newProxyInstance(
                        DockerSettingsTest.class.getClassLoader(),
                        new Class<?>[] {Config.class},
                        (proxy, m, args) -> {
                            if (!m.getName().equals("getOptionalValue")) {
                                throw new UnsupportedOperationException(m.getName());
                            }
                            String v = values.get((String) args[0]);
                            Class<?> type = (Class<?>) args[1];
                            if (v == null) {
                                return Optional.empty();
                            }
                            Object converted =
                                    type == Boolean.class
                                            ? Boolean.valueOf(v)
                                            : type == Integer.class
                                                    ? Integer.valueOf(v)
                                                    : type == Long.class
                                                            ? Long.valueOf(v)
                                                            : type == Double.class
                                                                    ? Double.valueOf(v)
                                                                    : v;
                            return Optional.of(converted);
                        });
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
