package dev.agentbox.tool.bridge;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A run's tool-call counts against its {@link BridgeLimits}, shared by all its sessions. The total
 * counts every call ever made in the mailbox, answered ones included, so a takeover (which reads
 * the mailbox from the start) arrives at the same total.
 */
final class BridgeRun {

    enum Admission {
        ADMITTED,
        TOO_MANY_IN_FLIGHT,
        TOO_MANY_CALLS;

        String message(BridgeLimits l) {
            return this == TOO_MANY_IN_FLIGHT
                    ? "too many tool calls at once (at most " + l.maxInFlight() + " per run)"
                    : "tool call limit reached (at most " + l.maxCallsPerRun() + " per run)";
        }
    }

    private final BridgeLimits limits;
    private final AtomicInteger total = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();

    BridgeRun(BridgeLimits limits) {
        this.limits = limits;
    }

    BridgeLimits limits() {
        return limits;
    }

    /**
     * Counts a call; one already answered is counted and never admitted again. Admitted calls must
     * be followed by {@link #callEnded}.
     */
    synchronized Admission admitCall(boolean alreadyAnswered) {
        int n = total.incrementAndGet();
        if (alreadyAnswered) {
            return Admission.TOO_MANY_CALLS; // not run again; the caller does not answer it
        }
        if (n > limits.maxCallsPerRun()) {
            return Admission.TOO_MANY_CALLS;
        }
        if (inFlight.get() >= limits.maxInFlight()) {
            return Admission.TOO_MANY_IN_FLIGHT;
        }
        inFlight.incrementAndGet();
        return Admission.ADMITTED;
    }

    void callEnded() {
        inFlight.decrementAndGet();
    }

    int total() {
        return total.get();
    }
}
