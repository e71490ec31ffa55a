package dev.agentbox.quota;

import dev.agentbox.platform.lease.Leases;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Per-tenant quotas (see {@link Quota}): the one place that decides whether a tenant may take one
 * more sandbox, run, process, stream or exec. Refusals are {@link QuotaExceededException}s.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>a slot is counted from the moment it is granted until it is closed, and every grant is
 *       paired with exactly one release on every exit path (callers close slots in {@code finally},
 *       or hand them to a completion such as a process's exit);
 *   <li>the limits are read once, from MicroProfile Config ({@code agentbox.quotas.*}) or from the
 *       constructor (tests);
 *   <li>a limit of 0 counts nothing at all.
 * </ul>
 */
@ApplicationScoped
public class TenantQuotas {

    @Inject Leases leases;

    private volatile QuotaLimits limits;
    private final ServerSlots server = new ServerSlots();
    private RecordedSlots recorded;

    protected TenantQuotas() {}

    /** For use outside the server (tests, benchmarks). */
    public TenantQuotas(QuotaLimits limits, Leases leases) {
        this.limits = limits;
        this.leases = leases;
        this.recorded = new RecordedSlots(leases);
    }

    /** No limits: for services built outside the container. */
    public static TenantQuotas unlimited() {
        return new TenantQuotas(QuotaLimits.unlimited(), null);
    }

    @PostConstruct
    void init() {
        limits = QuotaLimits.fromConfig(ConfigProvider.getConfig());
        recorded = new RecordedSlots(leases);
    }

    /**
     * Reads the limits at start-up, so that a negative limit fails the deployment rather than a
     * first request.
     */
    void atStartup(@Observes @Initialized(ApplicationScoped.class) Object ignored) {
        // Observing creates the bean: init() has checked the defaults by now.
    }

    /**
     * One slot of a {@link Quota.Scope#SERVER} quota (processes, streams, execs), held until
     * closed.
     *
     * @throws QuotaExceededException when the tenant holds its limit on this server
     */
    public Slot acquire(String tenant, Quota quota) {
        requireScope(quota, Quota.Scope.SERVER);
        return server.take(tenant, quota, limits.limit(tenant, quota));
    }

    /**
     * Starts something under one slot of {@code quota} that is released when {@code end} of the
     * started thing completes (e.g. a process's exit) — or at once when starting fails.
     */
    public <T> T holdUntil(
            String tenant, Quota quota, Supplier<T> start, Function<T, CompletionStage<?>> end) {
        Slot slot = acquire(tenant, quota);
        T started;
        try {
            started = start.get();
        } catch (RuntimeException | Error e) {
            slot.close();
            throw e;
        }
        end.apply(started).whenComplete((ok, failed) -> slot.close());
        return started;
    }

    /**
     * A slot for creating {@code item} under a {@link Quota.Scope#CLUSTER} quota (sandboxes,
     * concurrent runs); close it once the item's record is stored or its creation failed.
     *
     * @param recordedItems the tenant's recorded items (ids), given the limit (more are not needed)
     * @throws QuotaExceededException when the tenant's recorded and pending items reach the limit
     */
    public Slot reserve(
            String tenant, Quota quota, String item, IntFunction<Set<String>> recordedItems) {
        requireScope(quota, Quota.Scope.CLUSTER);
        return recorded.reserve(tenant, quota, limits.limit(tenant, quota), item, recordedItems);
    }

    /** How many slots of a server-scoped quota the tenant holds here now (diagnostics, tests). */
    public int held(String tenant, Quota quota) {
        return server.held(tenant, quota);
    }

    private static void requireScope(Quota quota, Quota.Scope scope) {
        if (quota.scope() != scope) {
            throw new IllegalArgumentException(
                    quota + " is counted per " + quota.scope() + ", not per " + scope);
        }
    }
}
