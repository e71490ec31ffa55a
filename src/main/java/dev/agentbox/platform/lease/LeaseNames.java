package dev.agentbox.platform.lease;

/**
 * The names of every lease this service takes, built here and nowhere else: a lease guards a
 * resource only if every taker spells its name the same way. Names fit the 255 characters of the
 * lease row.
 */
public final class LeaseNames {

    /** The prefix of every run's driver lease, for listing the held ones at once. */
    public static final String RUN_DRIVER_PREFIX = "run-driver:";

    private LeaseNames() {}

    /**
     * Held by the one server that refills a warm pool entry: {@code pool:<pool key>} (16 hex
     * chars).
     */
    public static String pool(String poolKey) {
        return "pool:" + poolKey;
    }

    /** Held while a sandbox is ensured, reclaimed or expired: {@code sandbox:<key>}. */
    public static String sandbox(String sandboxKey) {
        return "sandbox:" + sandboxKey;
    }

    /**
     * Held by whoever writes a run (its driver, a finalizer, an abort): {@code run-driver:<id>}.
     * {@code runRecordId} is the id of the run's stored record (unique across tenants, at most 36
     * characters), never the client's runId: the same runId in two tenants is two runs with two
     * leases, and no runId can make the name overflow.
     */
    public static String runDriver(String runRecordId) {
        return RUN_DRIVER_PREFIX + runRecordId;
    }

    /**
     * Serializes one tenant's quota checks of one kind: {@code quota-gate:<quota>:<tenant hash>}.
     */
    public static String quotaGate(String quota, String tenantHash) {
        return "quota-gate:" + quota + ":" + tenantHash;
    }

    /**
     * The prefix of one tenant's pending reservations of one kind; each one's name ends in its
     * item's hash.
     */
    public static String quotaPendingPrefix(String quota, String tenantHash) {
        return "quota-pending:" + quota + ":" + tenantHash + ":";
    }
}
