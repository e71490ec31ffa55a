package dev.agentbox.run.store;

import jakarta.persistence.EntityManager;
import java.time.Instant;

/**
 * Work that must commit with a run's end: {@link JpaEventLog#finishRun} calls every hook once, in
 * its own transaction on {@code em}, right after it wrote the terminal status (never for a stale or
 * already-terminal finish). A hook that throws rolls the run's end back with it, so a hook fails
 * only on what would fail the end too (the database), never on bad stored data.
 */
public interface RunEndHook {

    void ended(EntityManager em, RunRef run, RunStatus status, Instant finishedAt);
}
