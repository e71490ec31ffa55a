package dev.agentbox.run;

import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.tool.ClientToolCalls;
import dev.agentbox.tool.GateEvents;
import dev.agentbox.tool.ToolGate;

/**
 * What a run needs of whoever makes its tool calls wait: the gate its calls pass, where its client
 * tool calls wait for the client, and the end of those waits. Declared here, implemented above by
 * {@code dev.agentbox.interrupt.Interrupts} (a CDI bean): interrupts are rows that name a run, so
 * they depend on runs, and runs reach them only through this.
 *
 * <p>Invariant: once {@link #cancel} returns, none of the run's calls waits on this server any
 * more, and no later answer can contradict the refusal; a wait on another server ends at its next
 * poll.
 */
public interface RunGates {

    /** The gate of {@code run}'s tool calls, reporting into {@code events}. */
    ToolGate gate(RunRecordView run, GateEvents events);

    /** Where {@code run}'s client tool calls wait for the client, reporting into {@code events}. */
    ClientToolCalls clientTools(RunRecordView run, GateEvents events);

    /** Ends every pending wait of the run {@code run} (cancelled or ended); how many. */
    int cancel(RunRef run);
}
