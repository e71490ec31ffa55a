package dev.agentbox.run;

import dev.agentbox.run.store.RunRef;

/**
 * The name of a run's driver lease: {@code run-driver:<ref>}. Built from the store's
 * {@link RunRef} (unique across tenants, at most 36 characters), never from the client's
 * runId: the same runId in two tenants is two runs with two leases, and no runId can make a
 * lease name overflow its column.
 */
public final class DriverLease {

    public static final String PREFIX = "run-driver:";

    private DriverLease() {
    }

    public static String name(RunRef run) {
        return PREFIX + run.id();
    }
}
