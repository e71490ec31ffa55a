package dev.agentbox.tool;

import jakarta.json.JsonObject;

/**
 * Where a run's gate reports what it did, as {@code CUSTOM} chunks of the run's stream. Whoever
 * drives the run wires it to the run's fenced service-chunk path; both names are reserved service
 * names ({@code Chunks.SERVICE_NAMES}), so a takeover's replay passes over them.
 *
 * <p>An implementation must not block for long and may fail: the gate logs a failure and decides
 * all the same (the decision matters more than its chunk).
 */
@FunctionalInterface
public interface GateEvents {

    /** Every decision: {@code {"tool","approved","by","interruptId?","reason?"}}. */
    String APPROVAL_DECIDED = "approval.decided";

    /** An interrupt opened: the interrupt as the run record lists it. */
    String INTERRUPT_REQUESTED = "interrupt.requested";

    /** Events nobody reads. */
    GateEvents NONE = (name, value) -> {};

    void custom(String name, JsonObject value);
}
