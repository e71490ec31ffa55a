package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.interrupt.ApprovalGate;
import dev.agentbox.interrupt.InterruptSettings;
import dev.agentbox.interrupt.InterruptWaits;
import dev.agentbox.interrupt.store.Interrupt;
import dev.agentbox.interrupt.store.InterruptStatus;
import dev.agentbox.interrupt.store.InterruptStore;
import dev.agentbox.interrupt.store.JpaInterruptStore;
import dev.agentbox.platform.TestDatabase;
import dev.agentbox.run.store.JpaRunStore;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunStore;
import dev.agentbox.testing.PostgresPass;
import dev.agentbox.tool.GateDecision;
import dev.agentbox.tool.ToolCall;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Interrupts of {@code POST /runs} runs through the IT server's HTTP API, on PostgreSQL.
 *
 * <p>Until the tool bridge drives a run's tool calls, nothing inside the IT server asks a gate. So
 * this test plays the server that drives the run: it runs the real {@link ApprovalGate} against the
 * IT server's own database (the interrupt opened there is exactly the row a driving server would
 * write), while the answers, the run record, the cancel and the reaper go through the IT server.
 * The gate's wait therefore ends only through the store — an answer written by another server, as
 * in a takeover. AP-01, AP-04..AP-07.
 */
@PostgresPass
class InterruptsPostgresIT {

    private static final String TENANT = "tenant-a";
    private static final String ITS_DATABASE = ItDatabase.urlWithCredentials();
    private static final JsonObject ARGS =
            Json.createObjectBuilder().add("command", "rm -rf build").build();

    private static TestDatabase db;
    private static InterruptStore store;
    private static RunStore runStore;

    private final Api api = Api.itServer();
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);
    private final Runs runs = new Runs(api, Api.TENANT_A);
    private final List<String> chunks = new CopyOnWriteArrayList<>();
    private ScheduledExecutorService timer;
    private InterruptWaits waits;
    private String runId;
    private RunRecordView run;

    @BeforeAll
    static void openItsDatabase() {
        db =
                TestDatabase.open(
                        TestDatabase.Kind.POSTGRESQL,
                        Map.of("jakarta.persistence.jdbc.url", ITS_DATABASE));
        store = db.transactional(InterruptStore.class, JpaInterruptStore::new);
        runStore = db.transactional(RunStore.class, JpaRunStore::new);
    }

    @AfterAll
    static void close() {
        db.close();
    }

    @BeforeEach
    void aLiveRunWithApprovalRules() {
        timer = Executors.newSingleThreadScheduledExecutor();
        waits =
                new InterruptWaits(
                        store,
                        runStore,
                        Clock.systemUTC(),
                        new InterruptSettings(Duration.ofMinutes(5), Duration.ofMillis(100), 10),
                        timer);
        String key =
                sandboxes
                        .ensure("{\"definitionId\":\"interrupts-" + UUID.randomUUID() + "\"}")
                        .getString("key");
        runId = "interrupts-" + UUID.randomUUID();
        runs.start(
                Runs.runBody(
                        runId,
                        "{\"key\":\"" + key + "\"}",
                        "sleep 300",
                        ",\"approvals\":[{\"tool\":\"Read\",\"decision\":\"allow\"},"
                                + "{\"tool\":\"mcp__agentbox__*\",\"decision\":\"deny\"},"
                                + "{\"tool\":\"*\",\"decision\":\"ask\"}]"));
        run = runStore.find(TENANT, runId).orElseThrow();
    }

    @AfterEach
    void cleanUp() {
        waits.close();
        timer.shutdownNow();
        runs.cancel(runId);
        sandboxes.close();
    }

    private ApprovalGate gate(Duration ttl) {
        return new ApprovalGate(
                run, store, waits, (name, value) -> chunks.add(name), Clock.systemUTC(), ttl);
    }

    private CompletableFuture<GateDecision> ask(String callKey) {
        return gate(Duration.ofMinutes(5))
                .admit(new ToolCall(runId, callKey, "Bash", ARGS))
                .toCompletableFuture();
    }

    private HttpResponse<String> answer(String token, String run, String id, String body) {
        return api.send(
                api.request(Runs.path(run) + "/interrupts/" + id, token)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    private HttpResponse<String> answer(String id, String body) {
        return answer(Api.TENANT_A, runId, id, body);
    }

    private Interrupt onlyPending() {
        List<Interrupt> pending = store.pending(run.ref());
        assertThat(pending).hasSize(1);
        return pending.get(0);
    }

    @Test
    void theRulesPostedWithTheRunAreTheRulesEveryServerGatesItsCallsBy() {
        assertThat(run.approvals()).hasSize(3);
        GateDecision read =
                gate(Duration.ofMinutes(5))
                        .admit(new ToolCall(runId, "c-read", "Read", ARGS))
                        .toCompletableFuture()
                        .join();
        GateDecision bridged =
                gate(Duration.ofMinutes(5))
                        .admit(new ToolCall(runId, "c-deploy", "mcp__agentbox__deploy", ARGS))
                        .toCompletableFuture()
                        .join();

        assertThat(read.allowed()).isTrue();
        assertThat(bridged.allowed()).isFalse();
        assertThat(store.pending(run.ref())).isEmpty();
    }

    @Test
    void aPendingInterruptIsListedOnTheRunAndTheAnswerFromThisServerReachesTheWaitingCall()
            throws Exception {
        CompletableFuture<GateDecision> call = ask("c-1");
        Interrupt i = onlyPending();

        JsonArray listed = runs.get(runId).getJsonArray("interrupts");
        assertThat(listed).containsExactly(i.toJson());
        assertThat(listed.getJsonObject(0).keySet())
                .containsExactlyInAnyOrder("id", "reason", "tool", "arguments", "expiresAt");
        assertThat(chunks).containsExactly("interrupt.requested");
        assertThat(call).isNotDone();

        String approveEdited =
                "{\"status\":\"resolved\",\"payload\":{\"approved\":true,"
                        + "\"arguments\":{\"command\":\"rm -rf build/tmp\"}}}";
        assertThat(answer(i.id(), approveEdited).statusCode()).isEqualTo(204);

        GateDecision d = call.get(10, TimeUnit.SECONDS);
        assertThat(d.allowed()).isTrue();
        assertThat(d.arguments().orElseThrow().getString("command")).isEqualTo("rm -rf build/tmp");
        assertThat(runs.get(runId)).doesNotContainKey("interrupts");
        assertThat(answer(i.id(), approveEdited).statusCode())
                .as("the same answer twice")
                .isEqualTo(204);
        assertProblem(
                answer(i.id(), "{\"status\":\"resolved\",\"payload\":{\"approved\":false}}"),
                409,
                "interrupt-answered");
        assertThat(
                        assertProblem(
                                        answer(i.id(), "{\"status\":\"cancelled\"}"),
                                        409,
                                        "interrupt-answered")
                                .getString("interruptStatus"))
                .isEqualTo("resolved");
        assertThat(chunks).containsExactly("interrupt.requested", "approval.decided");
    }

    @Test
    void aCancelledInterruptRefusesTheCall() throws Exception {
        CompletableFuture<GateDecision> call = ask("c-1");

        assertThat(answer(onlyPending().id(), "{\"status\":\"cancelled\"}").statusCode())
                .isEqualTo(204);

        assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo(GateDecision.deny("cancelled"));
    }

    @Test
    void unknownInterruptsRunsAndOtherTenantsRunsAre404() {
        ask("c-1");
        Interrupt i = onlyPending();
        String ok = "{\"status\":\"cancelled\"}";

        assertProblem(answer("no-such-interrupt", ok), 404, "not-found");
        assertProblem(answer(Api.TENANT_A, "no-such-run", i.id(), ok), 404, "not-found");
        assertProblem(answer(Api.TENANT_B, runId, i.id(), ok), 404, "not-found");
        assertThat(onlyPending().id()).as("untouched").isEqualTo(i.id());
    }

    @Test
    void aBadAnswerIs400NamingTheField() {
        ask("c-1");
        String id = onlyPending().id();

        assertThat(assertProblem(answer(id, "[]"), 400, "invalid-request").getString("field"))
                .isEqualTo("body");
        assertThat(assertProblem(answer(id, "{}"), 400, "invalid-request").getString("field"))
                .isEqualTo("status");
        assertThat(
                        assertProblem(
                                        answer(id, "{\"status\":\"expired\"}"),
                                        400,
                                        "invalid-request")
                                .getString("field"))
                .isEqualTo("status");
        assertThat(
                        assertProblem(
                                        answer(id, "{\"status\":\"resolved\",\"payload\":[1]}"),
                                        400,
                                        "invalid-request")
                                .getString("field"))
                .isEqualTo("payload");
        assertThat(
                        assertProblem(
                                        answer(id, "{\"status\":\"resolved\",\"payload\":{}}"),
                                        400,
                                        "invalid-request")
                                .getString("field"))
                .isEqualTo("payload.approved");
        assertThat(
                        assertProblem(
                                        answer(
                                                id,
                                                "{\"status\":\"resolved\",\"payload\":"
                                                        + "{\"approved\":true,\"arguments\":\"x\"}}"),
                                        400,
                                        "invalid-request")
                                .getString("field"))
                .isEqualTo("payload.arguments");
        assertThat(
                        assertProblem(
                                        answer(id, "{\"status\":\"cancelled\",\"why\":1}"),
                                        400,
                                        "invalid-request")
                                .getString("field"))
                .isEqualTo("why");
        assertThat(onlyPending().id()).as("still pending").isEqualTo(id);
    }

    @Test
    void cancellingTheRunCancelsItsInterruptsAndRefusesTheWaitingCall() throws Exception {
        CompletableFuture<GateDecision> call = ask("c-1");
        String id = onlyPending().id();

        assertThat(runs.cancel(runId).statusCode()).isEqualTo(202);

        assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo(GateDecision.deny("cancelled"));
        assertThat(store.find(run.ref(), id).orElseThrow().status())
                .isEqualTo(InterruptStatus.CANCELLED);
        assertProblem(
                answer(id, "{\"status\":\"resolved\",\"payload\":{\"approved\":true}}"),
                409,
                "interrupt-answered");
    }

    @Test
    void theReaperOfAnyServerCancelsAnInterruptPastItsTimeAsExpired() throws Exception {
        gate(Duration.ofMillis(300)).admit(new ToolCall(runId, "c-1", "Bash", ARGS));
        String id = onlyPending().id();
        Thread.sleep(400);

        HttpResponse<String> sweep =
                api.send(
                        api.request("/api/v1/admin/reaper/sweep", Api.ADMIN)
                                .POST(HttpRequest.BodyPublishers.noBody()));
        assertThat(sweep.statusCode()).isEqualTo(200);

        assertThat(store.find(run.ref(), id).orElseThrow().status())
                .isEqualTo(InterruptStatus.EXPIRED);
        assertThat(runs.get(runId)).doesNotContainKey("interrupts");
        JsonObject late =
                assertProblem(answer(id, "{\"status\":\"cancelled\"}"), 409, "interrupt-answered");
        assertThat(late.getString("interruptStatus")).isEqualTo("cancelled");
        assertThat(late.getString("cancelReason")).isEqualTo("expired");
    }

    @Test
    void theEndOfARunCancelsItsPendingInterruptsAndRefusesTheWaitingCall() throws Exception {
        String key =
                sandboxes
                        .ensure("{\"definitionId\":\"interrupts-end-" + UUID.randomUUID() + "\"}")
                        .getString("key");
        String shortRun = "interrupts-end-" + UUID.randomUUID();
        runs.start(
                Runs.runBody(
                        shortRun,
                        "{\"key\":\"" + key + "\"}",
                        "sleep 3",
                        ",\"approvals\":[{\"tool\":\"*\",\"decision\":\"ask\"}]"));
        RunRecordView ending = runStore.find(TENANT, shortRun).orElseThrow();
        CompletableFuture<GateDecision> call =
                new ApprovalGate(
                                ending,
                                store,
                                waits,
                                (name, value) -> chunks.add(name),
                                Clock.systemUTC(),
                                Duration.ofMinutes(5))
                        .admit(new ToolCall(shortRun, "c-1", "Bash", ARGS))
                        .toCompletableFuture();
        String id = store.pending(ending.ref()).get(0).id();
        assertThat(runs.get(shortRun).getJsonArray("interrupts")).hasSize(1);

        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .until(() -> runs.get(shortRun).getString("status").equals("completed"));

        // The writer cancels right after it has written the run's end, so "completed" may be
        // read a moment before the cancel lands: wait for it, then check it came with the end
        // and not from a sweep (the IT servers' reapers run every 2 s).
        Instant finished = Instant.parse(runs.get(shortRun).getString("finishedAt"));
        Interrupt cancelled =
                org.awaitility.Awaitility.await()
                        .atMost(Duration.ofSeconds(5))
                        .until(
                                () -> store.find(ending.ref(), id).orElseThrow(),
                                i -> i.status() != InterruptStatus.PENDING);
        assertThat(cancelled.status())
                .as("cancelled by the server whose writer ended the run, no sweep needed")
                .isEqualTo(InterruptStatus.CANCELLED);
        assertThat(Duration.between(finished, cancelled.answeredAt().orElseThrow()))
                .as("cancelled with the run's end")
                .isLessThan(Duration.ofMillis(1000));
        assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo(GateDecision.deny("cancelled"));
        assertThat(runs.get(shortRun)).doesNotContainKey("interrupts");
    }

    @Test
    void anAgentDefinitionKeepsItsApprovalsAndRefusesBadOnesByField() {
        String agentId = "interrupts-" + UUID.randomUUID();
        String path = "/api/v1/agents/" + agentId;
        String body =
                "{\"sandbox\":{},\"harness\":\"command\",\"command\":\"true\","
                        + "\"approvals\":[{\"tool\":\"Bash\",\"decision\":\"ask\"}]}";
        try {
            HttpResponse<String> put =
                    api.send(
                            api.request(path, Api.TENANT_A)
                                    .header("Content-Type", "application/json")
                                    .PUT(HttpRequest.BodyPublishers.ofString(body)));
            assertThat(put.statusCode()).as(put.body()).isEqualTo(201);
            assertThat(Api.object(api.get(path, Api.TENANT_A)).getJsonArray("approvals"))
                    .isEqualTo(
                            Json.createArrayBuilder()
                                    .add(
                                            Json.createObjectBuilder()
                                                    .add("tool", "Bash")
                                                    .add("decision", "ask"))
                                    .build());
            HttpResponse<String> bad =
                    api.send(
                            api.request(path, Api.TENANT_A)
                                    .header("Content-Type", "application/json")
                                    .PUT(
                                            HttpRequest.BodyPublishers.ofString(
                                                    body.replace("\"ask\"", "\"later\""))));
            assertThat(assertProblem(bad, 400, "invalid-request").getString("field"))
                    .isEqualTo("approvals[0].decision");
        } finally {
            api.send(api.request(path, Api.TENANT_A).DELETE());
        }
    }
}
