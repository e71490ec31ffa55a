package dev.agentbox.sandbox.store;

import dev.agentbox.platform.PageCursor;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Records of the sandboxes agentbox made. Each method is one transaction. */
public interface SandboxInstanceStore {

    /** The tenant's record under {@code key}; empty when unknown or another tenant's. */
    Optional<SandboxInstance> find(String tenant, String key);

    /** Inserts or replaces the record under its key; returns the stored state. */
    SandboxInstance upsert(SandboxInstance instance);

    /** Deletes the tenant's record; false when there was none. */
    boolean delete(String tenant, String key);

    /** The tenant's records, oldest first. */
    List<SandboxInstance> list(String tenant);

    /**
     * The tenant's records, oldest {@code createdAt} first (ties: smaller key first), only those
     * after {@code after} in that order when given, at most {@code limit} (at least 1).
     */
    List<SandboxInstance> page(String tenant, Optional<PageCursor> after, int limit);

    /**
     * Records of every tenant, oldest first, at most {@code limit} (journal pruning walks them).
     */
    List<SandboxInstance> listAll(int limit);

    /**
     * Records of all tenants idle at {@code now} (last use + keep-alive before now), oldest use
     * first.
     */
    List<SandboxInstance> listIdle(Instant now, int limit);

    /** Whether any record (of any tenant) points at this provider sandbox; used to find orphans. */
    boolean existsForProviderSandbox(String provider, String providerSandboxId);
}
