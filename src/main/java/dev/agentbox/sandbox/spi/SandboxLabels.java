package dev.agentbox.sandbox.spi;

/** Label names every provider attaches to the sandboxes it makes. */
public final class SandboxLabels {

    /** Marks a sandbox (container, image, folder) as agentbox's; value {@code true}. */
    public static final String MANAGED = "dev.agentbox.managed";

    /** The compound sandbox key the sandbox was ensured for. */
    public static final String KEY = "dev.agentbox.key";

    /** The tenant that owns the sandbox. */
    public static final String TENANT = "dev.agentbox.tenant";

    /**
     * The installation (database) whose service made the sandbox. Orphan collection only touches
     * sandboxes of its own installation: two installations may share one engine.
     */
    public static final String INSTALLATION = "dev.agentbox.installation";

    /**
     * On a sandbox made for the warm pool: the pool's key. It stays after the sandbox is claimed;
     * the tenant and key of a claimed one are in its record, not in labels (which cannot change).
     */
    public static final String POOL = "dev.agentbox.pool";

    /** On a snapshot image: the id of the sandbox it was taken from. */
    public static final String SNAPSHOT_OF = "dev.agentbox.snapshot-of";

    private SandboxLabels() {}
}
