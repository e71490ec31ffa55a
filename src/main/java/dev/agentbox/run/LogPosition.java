package dev.agentbox.run;

import dev.agentbox.run.store.LoggedChunk;
import java.util.ArrayList;
import java.util.List;

/**
 * One reader's position in a run's log: the seq of the last chunk it was given. It is the only
 * judge of what may be given next — exactly seq {@code last + 1} — whatever source the chunks come
 * from (the table, the in-memory buffer of a local driver's appends). Not a cursor over the table:
 * it holds no rows, only a number.
 */
final class LogPosition {

    private long last;

    LogPosition(long afterSeq) {
        this.last = afterSeq;
    }

    /**
     * The seq of the last chunk given (the {@code afterSeq} the reader started from if none yet).
     */
    long last() {
        return last;
    }

    /**
     * The chunks of {@code page} (in seq order) that continue this position without a gap: seqs
     * {@code last+1, last+2, …}. Chunks at or before {@code last} were given already and are
     * skipped; the first seq beyond the next expected one ends the run of chunks, since what lies
     * between must come from the table first.
     */
    List<LoggedChunk> continuing(List<LoggedChunk> page) {
        List<LoggedChunk> out = new ArrayList<>();
        long expected = last + 1;
        for (LoggedChunk c : page) {
            if (c.seq() < expected) {
                continue;
            }
            if (c.seq() > expected) {
                break;
            }
            out.add(c);
            expected++;
        }
        return out;
    }

    /** {@code chunk} was given to the reader; it must be the next one. */
    void advance(LoggedChunk chunk) {
        if (chunk.seq() != last + 1) {
            throw new IllegalStateException("chunk " + chunk.seq() + " does not follow " + last);
        }
        last = chunk.seq();
    }
}
