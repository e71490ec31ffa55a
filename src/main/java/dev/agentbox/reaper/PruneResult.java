package dev.agentbox.reaper;

import java.util.List;
import java.util.Objects;

/**
 * What one {@link JournalPruner#prune()} did: the runIds whose journal files it deleted, and every
 * journal it kept with the reason (docs/api.md {@code POST /admin/journals/prune}). A kept file
 * whose name does not decode is listed under its file name.
 */
public record PruneResult(List<String> deleted, List<Kept> kept) {

    /** The run is {@code running} or {@code interrupted}: its journal is still needed. */
    public static final String NON_TERMINAL = "non-terminal";

    /** Not {@code <enc>.ndjson} / {@code <enc>.err}, or a hashed name: no runId to look up. */
    public static final String UNDECODABLE_NAME = "undecodable-name";

    /** No run record, but the newest file is younger than the orphan TTL. */
    public static final String ORPHAN_TOO_RECENT = "orphan-too-recent";

    /** The run store failed on this run's lookup. */
    public static final String STORE_ERROR = "store-error";

    /** The {@code rm} in the sandbox failed (or its outcome is unknown). */
    public static final String DELETE_FAILED = "delete-failed";

    /** Deletable, but this call already used its deletion budget. */
    public static final String MAX_DELETES = "max-deletes";

    public PruneResult {
        deleted = List.copyOf(deleted);
        kept = List.copyOf(kept);
    }

    /** A journal left in place, and why. */
    public record Kept(String runId, String reason) {

        public Kept {
            Objects.requireNonNull(runId, "runId");
            Objects.requireNonNull(reason, "reason");
        }
    }
}
