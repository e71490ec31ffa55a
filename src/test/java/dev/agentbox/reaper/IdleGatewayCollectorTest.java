package dev.agentbox.reaper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.sandbox.spi.ManagedSandbox;
import dev.agentbox.sandbox.spi.SandboxCapabilities;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The reaper's pass over the providers' idle egress gateways (EG-25: only its installation's). */
class IdleGatewayCollectorTest {

    private final List<String> asked = new ArrayList<>();

    private SandboxProvider provider(String name, boolean fails) {
        return new SandboxProvider() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public SandboxCapabilities capabilities() {
                return SandboxCapabilities.of();
            }

            @Override
            public boolean available() {
                return true;
            }

            @Override
            public SandboxHandle create(SandboxCreateInput input) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Optional<SandboxHandle> resume(String id) {
                return Optional.empty();
            }

            @Override
            public void destroy(String id) {}

            @Override
            public List<ManagedSandbox> listManaged() {
                return List.of();
            }

            @Override
            public List<String> reclaimIdleGateways(String installation, Duration idle) {
                asked.add(name + ":" + installation + ":" + idle.toMillis());
                if (fails) {
                    throw new IllegalStateException("engine down");
                }
                return List.of("gw-" + installation);
            }
        };
    }

    @Test
    void eachProviderIsAskedForTheReapersOwnInstallationAndOneFailureStopsNoOther() {
        IdleGatewayCollector c =
                new IdleGatewayCollector(
                        () -> List.of(provider("a", true), provider("b", false)),
                        () -> Optional.of("inst-1"),
                        Duration.ofMillis(5));
        assertThat(c.collect()).containsExactly("b:gw-inst-1");
        assertThat(asked).containsExactly("a:inst-1:5", "b:inst-1:5");
    }

    @Test
    void withoutAnInstallationIdNothingIsReclaimed() {
        IdleGatewayCollector c =
                new IdleGatewayCollector(
                        () -> List.of(provider("b", false)), Optional::empty, Duration.ZERO);
        assertThat(c.collect()).isEmpty();
        assertThat(asked).isEmpty();
    }

    @Test
    void theDefaultOfTheSpiReclaimsNothingAndANegativeBoundIsRefused() {
        SandboxProvider plain = provider("k", false);
        assertThat(
                        new SandboxProvider() {
                            @Override
                            public String name() {
                                return "k8s";
                            }

                            @Override
                            public SandboxCapabilities capabilities() {
                                return plain.capabilities();
                            }

                            @Override
                            public boolean available() {
                                return true;
                            }

                            @Override
                            public SandboxHandle create(SandboxCreateInput input) {
                                throw new UnsupportedOperationException();
                            }

                            @Override
                            public Optional<SandboxHandle> resume(String id) {
                                return Optional.empty();
                            }

                            @Override
                            public void destroy(String id) {}

                            @Override
                            public List<ManagedSandbox> listManaged() {
                                return List.of();
                            }
                        }.reclaimIdleGateways("i", Duration.ZERO))
                .isEmpty();
        assertThatThrownBy(
                        () ->
                                new IdleGatewayCollector(
                                        List::of, () -> Optional.of("i"), Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
