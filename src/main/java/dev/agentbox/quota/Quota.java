package dev.agentbox.quota;

import java.util.OptionalInt;

/**
 * A per-tenant limit. Each is configured as {@code agentbox.quotas.max-<name>} (and per tenant as
 * {@code agentbox.quotas.tenant.<tenant>.max-<name>}); {@code 0} means no limit.
 *
 * <p>Where it is counted matters to an operator:
 *
 * <ul>
 *   <li>{@link Scope#CLUSTER}: records in the database plus creations in flight on any server (held
 *       as leases), so servers sharing the database enforce one limit together;
 *   <li>{@link Scope#SERVER}: in this server's memory; N servers allow up to N times the limit.
 * </ul>
 */
public enum Quota {

    /**
     * Sandbox records of the tenant (an ensure that resumes or restores an existing key is not
     * new).
     */
    SANDBOXES("sandboxes", Scope.CLUSTER, OptionalInt.empty()),
    /** Non-terminal ({@code running}, {@code interrupted}) runs of the tenant. */
    CONCURRENT_RUNS("concurrent-runs", Scope.CLUSTER, OptionalInt.of(10)),
    /** Background processes of the tenant started through this server and not yet exited. */
    PROCESSES("processes", Scope.SERVER, OptionalInt.of(5)),
    /** Open SSE streams of the tenant on this server (run events, process output, file events). */
    STREAMS("streams", Scope.SERVER, OptionalInt.of(5)),
    /**
     * Execs and file operations of the tenant in flight on this server (each holds an engine
     * connection).
     */
    CONCURRENT_EXECS("concurrent-execs", Scope.SERVER, OptionalInt.of(1));

    /** Where a quota is counted. */
    public enum Scope {
        CLUSTER,
        SERVER
    }

    private final String wireName;
    private final Scope scope;
    private final OptionalInt retryAfterSeconds;

    Quota(String wireName, Scope scope, OptionalInt retryAfterSeconds) {
        this.wireName = wireName;
        this.scope = scope;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** The name in problem documents ({@code quota}) and in configuration keys. */
    public String wireName() {
        return wireName;
    }

    /** The configuration key suffix, e.g. {@code max-sandboxes}. */
    public String configName() {
        return "max-" + wireName;
    }

    public Scope scope() {
        return scope;
    }

    /**
     * A hint for {@code Retry-After}: present where slots free themselves soon (runs end, execs
     * return); absent for sandboxes, which stay until deleted or idle-expired.
     */
    public OptionalInt retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
