package dev.agentbox.run;

import dev.agentbox.run.journal.JournalLauncher;
import dev.agentbox.run.store.ClaimStore;
import dev.agentbox.run.store.EventLog;
import dev.agentbox.run.store.RunStore;
import dev.agentbox.sandbox.SandboxService;
import java.time.Clock;

/** What a {@link RunDriver} works with. */
public record RunContext(
        RunStore runs,
        ClaimStore claims,
        EventLog log,
        RunEventHub hub,
        SandboxService sandboxes,
        JournalLauncher launcher,
        ReaderFactory readers,
        Clock clock,
        String nodeId) {
}

