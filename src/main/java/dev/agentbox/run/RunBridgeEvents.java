package dev.agentbox.run;

import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.tool.GateEvents;
import dev.agentbox.tool.ToolCallEvents;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * What a run's tool bridge and approval gate report, held as chunks until the driver's thread
 * appends them ({@link JournalPump}): bridged calls' {@code TOOL_CALL_*} chunks and the gate's
 * {@code approval.decided} / {@code interrupt.requested}. The bridge's threads only queue; the
 * driver's thread drains, so these chunks pass the same fence as the journal's, in one order.
 *
 * <p>Bounded: past {@value #MAX_QUEUED} chunks not yet drained, more are dropped (a driver that
 * stopped draining is about to end anyway).
 */
final class RunBridgeEvents implements ToolCallEvents, GateEvents {

    static final int MAX_QUEUED = 10_000;

    private final ChunkFactory chunks;
    private final ConcurrentLinkedQueue<JsonObject> queued = new ConcurrentLinkedQueue<>();

    RunBridgeEvents(ChunkFactory chunks) {
        this.chunks = chunks;
    }

    @Override
    public void started(String callKey, String tool, String argumentsJson) {
        ServiceChunks.bridgeCallStarted(chunks, callKey, tool, argumentsJson).forEach(this::add);
    }

    @Override
    public void finished(String callKey, String resultText, boolean error) {
        add(ServiceChunks.bridgeCallResult(chunks, callKey, resultText));
    }

    @Override
    public void custom(String name, JsonObject value) {
        add(chunks.custom(name, value));
    }

    private void add(JsonObject chunk) {
        if (queued.size() < MAX_QUEUED) {
            queued.add(chunk);
        }
    }

    /** The chunks queued so far, oldest first; the driver's thread only. */
    List<JsonObject> drain() {
        List<JsonObject> out = new ArrayList<>();
        for (JsonObject c; (c = queued.poll()) != null; ) {
            out.add(c);
        }
        return out;
    }
}
