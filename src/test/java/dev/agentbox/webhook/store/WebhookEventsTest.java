package dev.agentbox.webhook.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.agent.WebhookEvent;
import dev.agentbox.agent.store.AgentRow;
import dev.agentbox.agent.store.AgentTurn;
import dev.agentbox.agent.store.AgentTurnRow;
import dev.agentbox.agent.store.JpaAgentStore;
import dev.agentbox.agent.store.JpaAgentTurnStore;
import dev.agentbox.interrupt.store.Interrupt;
import dev.agentbox.interrupt.store.InterruptRow;
import dev.agentbox.interrupt.store.JpaInterruptStore;
import dev.agentbox.interrupt.store.NewInterrupt;
import dev.agentbox.platform.TestDatabase;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.store.ClaimStore;
import dev.agentbox.run.store.DriverClaim;
import dev.agentbox.run.store.FinishResult;
import dev.agentbox.run.store.JpaClaimStore;
import dev.agentbox.run.store.JpaEventLog;
import dev.agentbox.run.store.JpaRunStore;
import dev.agentbox.run.store.NewRun;
import dev.agentbox.run.store.RunError;
import dev.agentbox.run.store.RunEvent;
import dev.agentbox.run.store.RunRecord;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.run.store.RunStatus;
import dev.agentbox.run.store.RunStore;
import dev.agentbox.testing.SettableClock;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Events are queued by the one place a run's end is written ({@link JpaEventLog#finishRun}, with
 * {@link WebhookRunEnds} as its hook) and by {@link Webhooks#interruptRequested}, which the one
 * place an interrupt is created calls ({@link JpaInterruptStore#open}, with {@link
 * WebhookInterrupts} as its hook; AP-08), on embedded Derby.
 */
class WebhookEventsTest {

    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    private static final String HOOKS =
            "[{\"url\":\"https://a.example/end\",\"events\":[\"run.finished\",\"run.failed\"]},"
                    + "{\"url\":\"https://b.example/wait\",\"events\":[\"interrupt.requested\",\"run.failed\"]}]";

    private static TestDatabase db;
    private static RunStore runs;
    private static ClaimStore claims;
    private static WebhookOutbox outbox;

    @BeforeAll
    static void openDerby() {
        db = TestDatabase.open(TestDatabase.Kind.DERBY);
        runs = db.transactional(RunStore.class, JpaRunStore::new);
        claims = db.transactional(ClaimStore.class, JpaClaimStore::new);
        outbox = db.transactional(WebhookOutbox.class, JpaWebhookOutbox::new);
    }

    @AfterAll
    static void close() {
        db.close();
    }

    @BeforeEach
    void clear() {
        db.clear(
                InterruptRow.class,
                OutboxRow.class,
                AgentRow.class,
                AgentTurnRow.class,
                RunEvent.class,
                DriverClaim.class,
                RunRecord.class);
    }

    private static void define(String tenant, String agentId, String webhooks) {
        String def =
                "{\"sandbox\":{},\"harness\":\"command\",\"command\":\"x\""
                        + (webhooks == null ? "" : ",\"webhooks\":" + webhooks)
                        + "}";
        db.inTransaction(em -> new JpaAgentStore(em).put(tenant, agentId, def, T0, 0));
    }

    /** A claimed run (epoch 1); an agent's when {@code agentId} is set. */
    private static RunRef run(String tenant, String runId, String agentId) {
        RunRef ref =
                runs.create(NewRun.durable(tenant, runId, "thread-1", Harness.COMMAND, T0))
                        .orElseThrow()
                        .ref();
        claims.claim(ref, "node-a").orElseThrow();
        if (agentId != null) {
            db.inTransaction(
                    em -> {
                        new JpaAgentTurnStore(em)
                                .create(
                                        new AgentTurn(
                                                tenant,
                                                runId,
                                                agentId,
                                                "thread-1",
                                                "m1",
                                                "hi",
                                                T0));
                        return null;
                    });
        }
        return ref;
    }

    private static FinishResult finish(RunRef run, long epoch, RunStatus status) {
        Optional<RunError> error =
                status == RunStatus.COMPLETED
                        ? Optional.empty()
                        : Optional.of(new RunError("boom", Optional.empty()));
        return db.inTransaction(
                em ->
                        new JpaEventLog(em, List.of(new WebhookRunEnds()))
                                .finishRun(run, epoch, status, T0.plusSeconds(60), error));
    }

    private static String id(String tenant, String runId, WebhookEvent e, String key) {
        return java.util
                .UUID
                .nameUUIDFromBytes(
                        (tenant + "\n" + runId + "\n" + e.wireName() + "\n" + key)
                                .getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .toString();
    }

    private static JsonObject json(String s) {
        return Json.createReader(new StringReader(s)).readObject();
    }

    @Test
    void aCompletedRunOfAnAgentQueuesRunFinishedForTheWebhooksThatWantIt() {
        define("acme", "bot", HOOKS);
        RunRef ref = run("acme", "r1", "bot");
        assertThat(finish(ref, 1, RunStatus.COMPLETED)).isEqualTo(FinishResult.FINISHED);
        String id = id("acme", "r1", WebhookEvent.RUN_FINISHED, "end");
        List<OutboxEntry> rows = outbox.byDeliveryId(id);
        assertThat(rows).extracting(OutboxEntry::url).containsExactly("https://a.example/end");
        JsonObject payload = json(rows.get(0).payload());
        assertThat(payload)
                .isEqualTo(
                        json(
                                "{\"id\":\""
                                        + id
                                        + "\",\"event\":\"run.finished\",\"tenant\":\"acme\","
                                        + "\"agentId\":\"bot\",\"threadId\":\"thread-1\","
                                        + "\"runId\":\"r1\",\"at\":\"2026-03-01T10:01:00Z\"}"));
    }

    @Test
    void aFailedOrAbortedRunQueuesRunFailedToEveryWebhookThatWantsIt() {
        define("acme", "bot", HOOKS);
        finish(run("acme", "r1", "bot"), 1, RunStatus.FAILED);
        finish(run("acme", "r2", "bot"), 1, RunStatus.ABORTED);
        for (String runId : List.of("r1", "r2")) {
            List<OutboxEntry> rows =
                    outbox.byDeliveryId(id("acme", runId, WebhookEvent.RUN_FAILED, "end"));
            assertThat(rows)
                    .extracting(OutboxEntry::url)
                    .containsExactly("https://a.example/end", "https://b.example/wait");
            // One delivery id across urls: what receivers dedupe by.
            assertThat(rows.get(0).payload()).isEqualTo(rows.get(1).payload());
        }
    }

    @Test
    void aStaleOrSecondFinishQueuesNothingMore() {
        define("acme", "bot", HOOKS);
        RunRef ref = run("acme", "r1", "bot");
        assertThat(finish(ref, 7, RunStatus.COMPLETED)).isEqualTo(FinishResult.STALE_EPOCH);
        assertThat(outbox.byDeliveryId(id("acme", "r1", WebhookEvent.RUN_FINISHED, "end")))
                .isEmpty();
        finish(ref, 1, RunStatus.COMPLETED);
        assertThat(finish(ref, 1, RunStatus.FAILED)).isEqualTo(FinishResult.ALREADY_TERMINAL);
        assertThat(outbox.byDeliveryId(id("acme", "r1", WebhookEvent.RUN_FINISHED, "end")))
                .hasSize(1);
        assertThat(outbox.byDeliveryId(id("acme", "r1", WebhookEvent.RUN_FAILED, "end"))).isEmpty();
    }

    @Test
    void runsThatAreNotAnAgentsOrWhoseAgentHasNoWebhooksQueueNothing() {
        define("default", "quiet", null);
        finish(run("default", "plain", null), 1, RunStatus.COMPLETED);
        finish(run("default", "r2", "quiet"), 1, RunStatus.COMPLETED);
        assertThat(outbox.byDeliveryId(id("default", "plain", WebhookEvent.RUN_FINISHED, "end")))
                .isEmpty();
        assertThat(outbox.byDeliveryId(id("default", "r2", WebhookEvent.RUN_FINISHED, "end")))
                .isEmpty();
    }

    @Test
    void anInterruptQueuesInterruptRequestedCarryingTheInterruptWithoutTheDevTenant() {
        define("default", "bot", HOOKS);
        run("default", "r1", "bot");
        JsonObject interrupt =
                json(
                        "{\"id\":\"i-1\",\"reason\":\"approval\",\"tool\":\"Bash\","
                                + "\"arguments\":{\"command\":\"ls\"},\"expiresAt\":\"2026-03-01T11:00:00Z\"}");
        List<NewDelivery> queued =
                db.inTransaction(
                        em ->
                                new Webhooks(em, new SettableClock(T0))
                                        .interruptRequested("default", "r1", interrupt));
        assertThat(queued).extracting(NewDelivery::url).containsExactly("https://b.example/wait");
        String id = id("default", "r1", WebhookEvent.INTERRUPT_REQUESTED, "interrupt i-1");
        JsonObject payload = json(outbox.byDeliveryId(id).get(0).payload());
        assertThat(payload.containsKey("tenant")).isFalse();
        assertThat(payload.getString("event")).isEqualTo("interrupt.requested");
        assertThat(payload.getJsonObject("interrupt")).isEqualTo(interrupt);
        assertThat(payload.getString("at")).isEqualTo(T0.toString());
        db.inTransaction(
                em ->
                        new Webhooks(em, new SettableClock(T0.plusSeconds(9)))
                                .interruptRequested("default", "r1", interrupt));
        assertThat(outbox.byDeliveryId(id)).hasSize(1);
        assertThat(json(outbox.byDeliveryId(id).get(0).payload()).getString("at"))
                .isEqualTo(T0.toString());
        List<NewDelivery> none =
                db.inTransaction(
                        em ->
                                new Webhooks(em, new SettableClock(T0))
                                        .interruptRequested("default", "nope", interrupt));
        assertThat(none).isEmpty();
    }

    /** The interrupt store with the server's hook, in a transaction of its own per call. */
    private static Interrupt open(RunRef run, String runId, String callKey) {
        NewInterrupt wait =
                new NewInterrupt(
                        run,
                        "acme",
                        runId,
                        callKey,
                        "approval",
                        Optional.of("call-" + callKey),
                        "Bash",
                        json("{\"command\":\"ls\"}"),
                        T0,
                        T0.plusSeconds(3600));
        return db.inTransaction(
                em ->
                        new JpaInterruptStore(
                                        em, List.of(new WebhookInterrupts(new SettableClock(T0))))
                                .open(wait));
    }

    @Test
    void storingAnInterruptQueuesInterruptRequestedOnceHoweverOftenItsCallAsks() {
        define("acme", "bot", HOOKS);
        RunRef ref = run("acme", "r1", "bot");

        Interrupt first = open(ref, "r1", "k1");
        Interrupt again = open(ref, "r1", "k1");

        assertThat(again.id()).isEqualTo(first.id());
        String id = id("acme", "r1", WebhookEvent.INTERRUPT_REQUESTED, "interrupt " + first.id());
        List<OutboxEntry> rows = outbox.byDeliveryId(id);
        assertThat(rows).extracting(OutboxEntry::url).containsExactly("https://b.example/wait");
        JsonObject payload = json(rows.get(0).payload());
        assertThat(payload.getString("event")).isEqualTo("interrupt.requested");
        assertThat(payload.getString("runId")).isEqualTo("r1");
        assertThat(payload.getJsonObject("interrupt")).isEqualTo(first.toJson());
        assertThat(
                        outbox.byDeliveryId(
                                id(
                                        "acme",
                                        "r1",
                                        WebhookEvent.INTERRUPT_REQUESTED,
                                        "interrupt " + open(ref, "r1", "k2").id())))
                .as("another call's interrupt: its own delivery")
                .hasSize(1);
    }

    @Test
    void anInterruptOfARunThatIsNotAnAgentsQueuesNothing() {
        RunRef ref = run("acme", "plain", null);
        Interrupt i = open(ref, "plain", "k1");
        assertThat(
                        outbox.byDeliveryId(
                                id(
                                        "acme",
                                        "plain",
                                        WebhookEvent.INTERRUPT_REQUESTED,
                                        "interrupt " + i.id())))
                .isEmpty();
    }
}
