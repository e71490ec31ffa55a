package dev.agentbox.run;

import dev.agentbox.platform.lease.Leases;
import dev.agentbox.run.store.InMemoryRuns;
import java.time.Clock;

/**
 * A {@link RunContext} over the in-memory stores for tests of takeover decisions: no sandboxes,
 * launcher or readers (a test that needs them is not a unit test), counters that count nothing, no
 * bridges.
 */
final class InMemoryRunContext {

    private InMemoryRunContext() {}

    static RunContext of(
            InMemoryRuns runs,
            Clock clock,
            String nodeId,
            Leases leases,
            RunContext.Takeover takeover) {
        return new RunContext(
                runs,
                runs,
                runs,
                new RunEventHub(),
                null,
                null,
                null,
                clock,
                nodeId,
                leases,
                takeover,
                cause -> {},
                (decision, n) -> {},
                ended -> {},
                BridgeStarter.NONE);
    }
}
