package dev.agentbox.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.sandbox.local.LocalSandboxProvider;
import dev.agentbox.sandbox.local.LocalSettings;
import dev.agentbox.sandbox.spi.SandboxCapabilities.Capability;
import dev.agentbox.sandbox.spi.UnsupportedCapabilityException;
import jakarta.json.Json;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An ensure asking for an egress policy of a provider that cannot confine a sandbox's network is
 * refused with {@code unsupported-capability} before anything is leased, counted or made.
 */
class EnsureNetworkPolicyTest {

    @TempDir Path root;

    @Test
    void anEgressEnsureOfTheLocalProviderIsUnsupportedBeforeTheLeaseOrTheStoreAreTouched()
            throws IOException {
        LocalSandboxProvider local =
                new LocalSandboxProvider(
                        new LocalSettings(true, root),
                        new DaemonThreads("test-local"),
                        Clock.systemUTC());
        // No store and no leases: reaching either would fail with another exception.
        SandboxService service =
                new SandboxService(
                        new SandboxProviders(List.of(local)), null, null, Clock.systemUTC());
        SandboxSpec spec =
                new SandboxSpecParser(1_800_000, false)
                        .parse(
                                Json.createReader(
                                                new StringReader(
                                                        "{\"provider\":\"local\",\"policy\":"
                                                                + "{\"network\":\"egress\",\"egress\":"
                                                                + "{\"allow\":[\"api.anthropic.com\"]}}}"))
                                        .readValue());

        assertThatThrownBy(() -> service.ensure("tenant-a", spec))
                .isInstanceOfSatisfying(
                        UnsupportedCapabilityException.class,
                        e -> {
                            assertThat(e.provider()).isEqualTo("local");
                            assertThat(e.capability()).isEqualTo(Capability.NETWORK_POLICY);
                            assertThat(e.getMessage()).contains("\"networkPolicy\"");
                        });
        try (var entries = Files.list(root)) {
            assertThat(entries).isEmpty();
        }
    }
}
