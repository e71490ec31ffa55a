package dev.agentbox.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.sandbox.spi.EgressAudit;
import dev.agentbox.sandbox.spi.SandboxHandle;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SecretsHandleTest {

    /**
     * A handle method with a default body that the wrapper does not override answers the default
     * (nothing, or unsupported) for every sandbox a service opens, whatever its provider can do: a
     * run in an egress sandbox got no refusals that way.
     */
    @Test
    void everyDefaultMethodOfTheHandleIsPassedToTheProvidersHandle() {
        List<String> notOverridden =
                Arrays.stream(SandboxHandle.class.getMethods())
                        .filter(Method::isDefault)
                        .filter(
                                m -> {
                                    try {
                                        return SecretsHandle.class
                                                        .getMethod(
                                                                m.getName(), m.getParameterTypes())
                                                        .getDeclaringClass()
                                                == SandboxHandle.class;
                                    } catch (NoSuchMethodException e) {
                                        return true;
                                    }
                                })
                        .map(Method::getName)
                        .toList();
        assertThat(notOverridden).isEmpty();
    }

    @Test
    void theEgressAuditIsTheProvidersHandles() {
        EgressAudit audit =
                new EgressAudit() {
                    @Override
                    public long end() {
                        return 7;
                    }

                    @Override
                    public Refusals since(long position) {
                        return new Refusals(List.of(), position);
                    }
                };
        SandboxHandle raw =
                (SandboxHandle)
                        Proxy.newProxyInstance(
                                SandboxHandle.class.getClassLoader(),
                                new Class<?>[] {SandboxHandle.class},
                                (proxy, method, args) ->
                                        switch (method.getName()) {
                                            case "id" -> "sandbox-1";
                                            case "egressAudit" -> Optional.of(audit);
                                            case "process" -> null;
                                            default ->
                                                    throw new UnsupportedOperationException(
                                                            method.getName());
                                        });
        assertThat(new SecretsHandle(raw).egressAudit()).containsSame(audit);
    }
}
