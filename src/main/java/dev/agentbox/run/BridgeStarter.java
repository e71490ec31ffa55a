package dev.agentbox.run;

import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.tool.GateEvents;
import dev.agentbox.tool.ToolCallEvents;

/**
 * Starts the tool bridge of a run that has one ({@link RunRecordView#bridge()}), on the server that
 * drives it: at a first start and at every takeover; the driver closes it when it stops driving.
 * The server's implementation builds the run's approval gate and HTTP tool client.
 */
@FunctionalInterface
public interface BridgeStarter {

    /** No bridges: a run's tools are not served (tests of the driver alone). */
    BridgeStarter NONE = (run, handle, calls, gate) -> () -> {};

    /** The running bridge of {@code run} on {@code handle}'s mailbox; close to stop serving. */
    AutoCloseable start(
            RunRecordView run, SandboxHandle handle, ToolCallEvents calls, GateEvents gate);
}
