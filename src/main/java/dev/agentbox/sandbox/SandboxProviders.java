package dev.agentbox.sandbox;

import dev.agentbox.sandbox.spi.SandboxProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The registry of enabled providers: every {@link SandboxProvider} bean whose {@code enabled()} is
 * true.
 */
@ApplicationScoped
public class SandboxProviders {

    @Inject @Any Instance<SandboxProvider> beans;

    private List<SandboxProvider> fixed;

    protected SandboxProviders() {}

    /**
     * For use outside the server: exactly these providers (each still filtered by {@code
     * enabled()}).
     */
    public SandboxProviders(List<SandboxProvider> providers) {
        this.fixed = List.copyOf(providers);
    }

    /** Enabled providers, sorted by name so listings are stable. */
    public List<SandboxProvider> enabled() {
        return (fixed != null ? fixed.stream() : beans.stream())
                .filter(SandboxProvider::enabled)
                .sorted(Comparator.comparing(SandboxProvider::name))
                .toList();
    }

    /** The enabled provider called {@code name}; empty when unknown or disabled. */
    public Optional<SandboxProvider> find(String name) {
        return enabled().stream().filter(p -> p.name().equals(name)).findFirst();
    }
}
