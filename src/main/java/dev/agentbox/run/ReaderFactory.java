package dev.agentbox.run;

import dev.agentbox.run.journal.JournalId;
import dev.agentbox.run.journal.JournalReader;
import dev.agentbox.sandbox.spi.SandboxHandle;

/** Opens a reader of a run's journal from a byte offset (a seam for tests). */
@FunctionalInterface
public interface ReaderFactory {
    JournalReader open(SandboxHandle handle, JournalId journal, long fromOffset);

    /**
     * As {@link #open}, for a journal the caller has just seen exist (a successor, after waiting
     * for it): the reader need not check again.
     */
    default JournalReader openSeen(SandboxHandle handle, JournalId journal, long fromOffset) {
        return open(handle, journal, fromOffset);
    }
}
