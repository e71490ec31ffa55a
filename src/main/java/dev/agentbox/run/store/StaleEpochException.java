package dev.agentbox.run.store;

import java.util.OptionalLong;

/**
 * An append by a driver whose epoch is no longer the run's current one (another server claimed the
 * run, or the run was never claimed with that epoch). Nothing of the batch was written. The driver
 * must latch shut: no further writes of any kind for this run.
 */
public class StaleEpochException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final RunRef run;
    private final long heldEpoch;
    private final transient OptionalLong currentEpoch;

    public StaleEpochException(RunRef run, long heldEpoch, OptionalLong currentEpoch) {
        super(
                "stale driver epoch for run "
                        + run.id()
                        + ": held "
                        + heldEpoch
                        + ", current "
                        + (currentEpoch.isPresent()
                                ? String.valueOf(currentEpoch.getAsLong())
                                : "none"));
        this.run = run;
        this.heldEpoch = heldEpoch;
        this.currentEpoch = currentEpoch;
    }

    public RunRef run() {
        return run;
    }

    public long heldEpoch() {
        return heldEpoch;
    }

    /** The run's epoch at the refusal; empty when the run is unknown or was never claimed. */
    public OptionalLong currentEpoch() {
        return currentEpoch == null ? OptionalLong.empty() : currentEpoch;
    }
}
