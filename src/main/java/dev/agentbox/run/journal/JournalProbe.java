package dev.agentbox.run.journal;

import java.util.OptionalInt;

/**
 * Decides from the tail of a journal whether its agent has finished, without reading the whole
 * journal (the reaper's check).
 *
 * <p>Only complete lines in the window count. When the window does not start at the start of the
 * file, its first line is a fragment of a longer line and is ignored (a fragment could look like a
 * sentinel only by coincidence of a line that merely ends with one). A trailing line without {@code
 * \n} is still being written and is ignored too. The first valid sentinel line in the window
 * decides; a forged one (wrong nonce, wrong shape) is ordinary output.
 */
public final class JournalProbe {

    /** How many bytes from the end of the journal are probed. */
    public static final int WINDOW_BYTES = 4096;

    private JournalProbe() {}

    /** The result of a probe. */
    public sealed interface Result permits Finished, Producing {}

    /** The journal holds this run's exit sentinel. */
    public record Finished(int exitCode) implements Result {}

    /** No sentinel (yet): the agent may still be producing. */
    public record Producing() implements Result {}

    /**
     * Probes {@code window}, the last bytes of a journal as {@code tail -c 4096} returns them: a
     * window shorter than {@link #WINDOW_BYTES} is the whole file.
     */
    public static Result probe(byte[] window, ExitSentinel sentinel) {
        return probe(window, window.length < WINDOW_BYTES, sentinel);
    }

    /** Probes {@code window}; {@code startsAtFileStart} tells whether its first line is whole. */
    public static Result probe(byte[] window, boolean startsAtFileStart, ExitSentinel sentinel) {
        int from = 0;
        if (!startsAtFileStart) {
            int firstNewline = indexOf(window, 0);
            if (firstNewline < 0) {
                return new Producing();
            }
            from = firstNewline + 1;
        }
        LineAssembler lines = new LineAssembler(sentinel);
        lines.feed(window, from, window.length - from);
        OptionalInt code = lines.exitCode();
        return code.isPresent() ? new Finished(code.getAsInt()) : new Producing();
    }

    private static int indexOf(byte[] bytes, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == '\n') {
                return i;
            }
        }
        return -1;
    }
}
