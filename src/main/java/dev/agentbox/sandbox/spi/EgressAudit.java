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

    /** One refused destination. */
    record Refusal(String host, int port) {}

    record Refusals(List<Refusal> refusals, long next) {}
}
