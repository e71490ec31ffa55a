package dev.agentbox.run;

import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunRef;

/**
 * What a {@link RunDriver} is told from outside its thread: abort (the in-process half of a
 * cancel), leave (this server is stopping), or a cancel recorded on the run by any server.
 *
 * <p>Flags only, never an interrupt: an interrupted JDBC call can break the connection (Derby); the
 * read loop sees a flag within one poll interval.
 */
final class DriverSignals {

    private final RunContext ctx;
    private final RunRef ref;
    private volatile boolean abortRequested;
    private volatile boolean leaving;

    DriverSignals(RunContext ctx, RunRef ref) {
        this.ctx = ctx;
        this.ref = ref;
    }

    void requestAbort() {
        abortRequested = true;
    }

    void leave() {
        leaving = true;
    }

    boolean abortRequested() {
        return abortRequested;
    }

    boolean leaving() {
        return leaving;
    }

    /** An abort was asked on this server, or a cancel is recorded on the run (one read). */
    boolean cancelled() {
        if (abortRequested) {
            return true;
        }
        return ctx.runs().findById(ref).flatMap(RunRecordView::cancelRequested).orElse(false);
    }
}
