package dev.agentbox.run;

import dev.agentbox.platform.lease.Leases;
import dev.agentbox.run.journal.JournalLauncher;
import dev.agentbox.run.store.ClaimStore;
import dev.agentbox.run.store.EventLog;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.run.store.RunStore;
import dev.agentbox.sandbox.SandboxService;
import java.time.Clock;
import java.time.Duration;

/**
 * What a {@link RunDriver} works with. {@code takeoverCounter} is told of each successor that
 * claimed its run (the server counts them by cause); {@code egressCounter} of the egress refusals
 * its drivers report, by decision ({@code denied}); {@code runEnded} of each run a writer of this
 * server ended (its pending interrupts are cancelled); {@code bridges} starts the tool bridge of a
 * run that has one.
 */
public record RunContext(
        RunStore runs,
        ClaimStore claims,
        EventLog log,
        RunEventHub hub,
        SandboxService sandboxes,
        JournalLauncher launcher,
        ReaderFactory readers,
        Clock clock,
        String nodeId,
        Leases leases,
        Takeover takeover,
        java.util.function.Consumer<TakeoverCause> takeoverCounter,
        java.util.function.ObjLongConsumer<String> egressCounter,
        java.util.function.Consumer<RunRef> runEnded,
        BridgeStarter bridges) {

    /**
     * Takeover settings: the driver lease's TTL and renewal interval, the quiet window a successor
     * waits for before its first append, and how long it waits for the journal.
     */
    public record Takeover(
            Duration leaseTtl, Duration leaseRenew, Duration fenceQuiet, Duration journalWait) {}
}
