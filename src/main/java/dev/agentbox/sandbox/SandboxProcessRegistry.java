package dev.agentbox.sandbox;

import dev.agentbox.sandbox.spi.SandboxProcess;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Background processes started through this server, by tenant, sandbox key and pid. A process lives
 * in the memory of the server that spawned it (its output streams from there); other servers answer
 * 404 for it. Exited processes are forgotten after a while.
 */
@ApplicationScoped
public class SandboxProcessRegistry {

    private static final Duration KEEP_EXITED = Duration.ofMinutes(10);

    @Inject Clock clock;

    private record Entry(SandboxProcess process, Instant startedAt) {}

    private final Map<String, Entry> processes = new ConcurrentHashMap<>();

    public void register(String tenant, String key, SandboxProcess process) {
        prune();
        processes.put(id(tenant, key, process.id()), new Entry(process, clock.instant()));
    }

    public Optional<SandboxProcess> find(String tenant, String key, String pid) {
        return Optional.ofNullable(processes.get(id(tenant, key, pid))).map(Entry::process);
    }

    private void prune() {
        Instant cutoff = clock.instant().minus(KEEP_EXITED);
        processes
                .values()
                .removeIf(e -> e.process().onExit().isDone() && e.startedAt().isBefore(cutoff));
    }

    private static String id(String tenant, String key, String pid) {
        return tenant + "\u0000" + key + "\u0000" + pid;
    }
}
