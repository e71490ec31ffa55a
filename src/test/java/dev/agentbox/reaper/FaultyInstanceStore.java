package dev.agentbox.reaper;

import dev.agentbox.sandbox.store.SandboxInstanceStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;

/**
 * The real instance store, except that one method throws as a database that went away does: a
 * reclaim that fails for a reason other than the provider's destroy.
 */
final class FaultyInstanceStore {

    private FaultyInstanceStore() {}

    /** {@code real}, with every call of {@code method} failing. */
    static SandboxInstanceStore failing(SandboxInstanceStore real, String method) {
        return (SandboxInstanceStore)
                Proxy.newProxyInstance(
                        SandboxInstanceStore.class.getClassLoader(),
                        new Class<?>[] {SandboxInstanceStore.class},
                        (p, m, args) -> {
                            if (m.getName().equals(method)) {
                                throw new IllegalStateException(
                                        "connection refused during " + method);
                            }
                            try {
                                return m.invoke(real, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
    }
}
