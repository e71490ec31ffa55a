package dev.agentbox.run.harness;

/**
 * Run-scoped message and tool-call ids: {@code <runId>-0}, {@code <runId>-1}, … in the order they
 * are asked for. No clock and no randomness, so translating the same journal again (a takeover
 * replays from byte 0 with a fresh instance) reproduces the same ids. One instance per translation;
 * not thread-safe.
 */
final class RunIds {

    private final String runId;
    private long next;

    public RunIds(String runId) {
        if (runId == null || runId.isEmpty()) {
            throw new IllegalArgumentException("runId must not be empty");
        }
        this.runId = runId;
    }

    /** The next id; never repeats within this instance. */
    public String next() {
        return runId + "-" + next++;
    }
}
