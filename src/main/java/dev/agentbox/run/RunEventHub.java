package dev.agentbox.run;

import dev.agentbox.run.store.RunRef;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * In-process wake-ups for readers of a run's log: a driver on this server signals after
 * every append, and each waiting reader re-reads the log. The database stays the source of
 * truth; a signal only shortens the wait. Readers of runs driven by another server are
 * woken by their own polling instead.
 *
 * <p>Signalling never blocks: a slow reader cannot slow the driver or other readers.
 */
@ApplicationScoped
public class RunEventHub {

    private final Map<RunRef, Set<Waiter>> waiters = new ConcurrentHashMap<>();

    /** A reader's wake-up flag: {@link #await} returns early once signalled. */
    public static final class Waiter implements AutoCloseable {
        private final Runnable unregister;
        private boolean signalled;

        private Waiter(Runnable unregister) {
            this.unregister = unregister;
        }

        synchronized void signal() {
            signalled = true;
            notifyAll();
        }

        /** Waits up to {@code millis} for a signal; clears it. */
        public synchronized void await(long millis) throws InterruptedException {
            long deadline = System.nanoTime() + millis * 1_000_000;
            while (!signalled) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    break;
                }
                wait(left);
            }
            signalled = false;
        }

        @Override
        public void close() {
            unregister.run();
        }
    }

    public Waiter register(RunRef run) {
        Waiter[] holder = new Waiter[1];
        holder[0] = new Waiter(() -> waiters.computeIfPresent(run, (k, set) -> {
            set.remove(holder[0]);
            return set.isEmpty() ? null : set;
        }));
        waiters.computeIfAbsent(run, k -> ConcurrentHashMap.newKeySet()).add(holder[0]);
        return holder[0];
    }

    /** New chunks (or a terminal state) for {@code run}: wake its readers. */
    public void signal(RunRef run) {
        Set<Waiter> set = waiters.get(run);
        if (set != null) {
            set.forEach(Waiter::signal);
        }
    }
}
