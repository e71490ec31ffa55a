package dev.agentbox.run.harness;

import java.util.function.Predicate;

/**
 * Run-scoped message and tool-call ids: {@code <runId>-0}, {@code <runId>-1}, … in the order they
 * are asked for, passing over any id {@code taken} names (an agent of the {@code command} harness
 * may have used one of that shape itself). No clock and no randomness, and {@code taken} depends
 * only on the chunks so far, so translating the same journal again (a takeover replays from byte 0
 * with a fresh instance) reproduces the same ids. One instance per translation; not thread-safe.
 */
final class RunIds {

    private final String runId;
    private final Predicate<String> taken;
    private long next;

    public RunIds(String runId) {
        this(runId, id -> false);
    }

    public RunIds(String runId, Predicate<String> taken) {
        if (runId == null || runId.isEmpty()) {
            throw new IllegalArgumentException("runId must not be empty");
        }
        this.runId = runId;
        this.taken = taken;
    }

    /** How many ids have been handed out or passed over: a point {@link #rewind} returns to. */
    long mark() {
        return next;
    }

    /**
     * Forgets the ids handed out since {@code mark}, for a caller that used none of them in a chunk
     * (they may be handed out again).
     */
    void rewind(long mark) {
        if (mark > next) {
            throw new IllegalArgumentException("mark " + mark + " is ahead of " + next);
        }
        next = mark;
    }

    /** The next id; never repeats among the ids used in chunks. */
    public String next() {
        String id;
        do {
            id = runId + "-" + next++;
        } while (taken.test(id));
        return id;
    }
}
