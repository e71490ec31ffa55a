package dev.agentbox.reaper;

import dev.agentbox.sandbox.spi.ManagedSandbox;
import dev.agentbox.sandbox.spi.SandboxCapabilities;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxProvider;
import java.util.List;
import java.util.Optional;

/**
 * The real provider, except that {@code destroy} throws as an engine refusing to remove a container
 * does.
 */
final class FailingDestroyProvider implements SandboxProvider {

    private final SandboxProvider real;

    FailingDestroyProvider(SandboxProvider real) {
        this.real = real;
    }

    @Override
    public String name() {
        return real.name();
    }

    @Override
    public SandboxCapabilities capabilities() {
        return real.capabilities();
    }

    @Override
    public boolean available() {
        return real.available();
    }

    @Override
    public SandboxHandle create(SandboxCreateInput input) {
        return real.create(input);
    }

    @Override
    public Optional<SandboxHandle> resume(String id) {
        return real.resume(id);
    }

    @Override
    public void destroy(String id) {
        throw new IllegalStateException("removal of container " + id + " is already in progress");
    }

    @Override
    public List<ManagedSandbox> listManaged() {
        return real.listManaged();
    }
}
