package dev.agentbox.sandbox.spi;

import java.util.List;

/**
 * The refusals of an egress sandbox's gateway (docs/egress.md): what the sandbox tried to reach and
 * was not allowed to, in the order refused. Read by position, so a reader (a run's driver) takes
 * each refusal once and starts where it chooses: a new driver starts at {@link #end()}, so a run is
 * told only of its own refusals.
 */
public interface EgressAudit {

    /** The position after the last refusal so far. */
    long end();

    /** The refusals from {@code position} on, and the position after them. */
    Refusals since(long position);

    /**
     * One refused destination. {@code missingSecret}: the name of a brokered secret whose value the
     * gateway did not hold when the sandbox sent its placeholder to {@code host} (the request was
     * refused rather than passed on with the bare placeholder); null for a refusal by the policy.
     */
    record Refusal(String host, int port, String missingSecret) {

        public Refusal(String host, int port) {
            this(host, port, null);
        }
    }

    /**
     * The refusals from a position and the position after them. {@code secretsHeld}: whether the
     * gateway holds any brokered secret of the sandbox now (true where the gateway cannot say): a
     * sandbox that has brokered secrets but whose gateway holds none is behind a gateway made
     * again.
     */
    record Refusals(List<Refusal> refusals, long next, boolean secretsHeld) {

        public Refusals(List<Refusal> refusals, long next) {
            this(refusals, next, true);
        }
    }
}
