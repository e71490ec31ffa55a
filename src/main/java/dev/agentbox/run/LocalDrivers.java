package dev.agentbox.run;

import dev.agentbox.run.store.RunRef;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The drivers running on this server, one per run at most, each on its own managed thread.
 *
 * <p>Invariants: a run has at most one driver here (a second launch for it is refused); a driver is
 * listed from its launch until its thread ends; once the server is stopping, every listed driver
 * has been told to leave its run to a successor.
 */
final class LocalDrivers {

    /**
     * Drivers and event streams are long-lived loops (minutes): each gets its own managed thread
     * rather than a slot of the shared pool, which grows only slowly and would leave new streams
     * waiting behind old ones.
     */
    private final ManagedThreadFactory threads;

    private final Map<RunRef, RunDriver> drivers = new ConcurrentHashMap<>();
    private volatile boolean stopping;

    LocalDrivers(ManagedThreadFactory threads) {
        this.threads = threads;
    }

    /** Starts {@code driver} on its own thread; false when this server already drives its run. */
    boolean launch(RunDriver driver) {
        if (drivers.putIfAbsent(driver.ref(), driver) != null) {
            return false;
        }
        threads.newThread(
                        () -> {
                            try {
                                driver.run();
                            } finally {
                                drivers.remove(driver.ref(), driver);
                            }
                        })
                .start();
        return true;
    }

    /** Runs {@code work} on a managed thread of its own (a background cancel). */
    void inBackground(Runnable work) {
        threads.newThread(work).start();
    }

    boolean drives(RunRef ref) {
        return drivers.containsKey(ref);
    }

    int count() {
        return drivers.size();
    }

    /** Aborts this server's driver of {@code ref}; false when there is none here. */
    boolean abort(RunRef ref) {
        RunDriver local = drivers.get(ref);
        if (local != null) {
            local.abort();
            return true;
        }
        return false;
    }

    /** The server is stopping: every driver leaves its run to a successor instead of failing it. */
    void leaveAll() {
        stopping = true;
        drivers.values().forEach(RunDriver::leave);
    }

    boolean stopping() {
        return stopping;
    }
}
