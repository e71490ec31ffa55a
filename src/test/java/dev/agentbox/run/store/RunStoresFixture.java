package dev.agentbox.run.store;

import dev.agentbox.run.harness.Harness;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the run-store contracts share: fresh stores per test from the subclass's backend, a unique
 * tenant (deleted afterwards), and a pause point inside fenced writes for race tests.
 */
abstract class RunStoresFixture {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    protected abstract StoreBackend backend();

    /** Runs inside each fenced write after its epoch check passed; race tests replace it. */
    volatile Runnable afterFenceCheck = () -> {};

    final String tenant = "tenant-" + UUID.randomUUID();
    final String otherTenant = "tenant-" + UUID.randomUUID();

    RunStores stores;
    RunStore runs;
    ClaimStore claims;
    EventLog log;

    @BeforeEach
    void openStores() {
        stores = backend().stores(() -> afterFenceCheck.run());
        runs = stores.runs();
        claims = stores.claims();
        log = stores.log();
    }

    @AfterEach
    void deleteTenants() {
        backend().deleteTenant(tenant);
        backend().deleteTenant(otherTenant);
    }

    NewRun newRun(String runId) {
        return NewRun.durable(tenant, runId, "thread-1", Harness.COMMAND, T0);
    }

    RunRecordView create(String runId) {
        return runs.create(newRun(runId)).orElseThrow();
    }

    RunRecordView create(NewRun run) {
        return runs.create(run).orElseThrow();
    }

    /** A created run already claimed once (epoch 1). */
    RunRef claimedRun() {
        RunRef run = create("run-" + UUID.randomUUID()).ref();
        claims.claim(run, "node-a").orElseThrow();
        return run;
    }

    static JsonObject chunk(String type, String text, long timestamp) {
        return Json.createObjectBuilder()
                .add("type", type)
                .add("threadId", "thread-1")
                .add("runId", "r")
                .add("timestamp", timestamp)
                .add("delta", text)
                .build();
    }

    static List<JsonObject> chunks(String prefix, int n) {
        List<JsonObject> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(chunk("TEXT_MESSAGE_CONTENT", prefix + "-" + i, 1000 + i));
        }
        return out;
    }
}
