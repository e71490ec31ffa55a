package dev.agentbox.agent.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.platform.TestDatabase;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The agent stores on a real database (each backend a subclass): tenant scoping, bounds,
 * uniqueness, order.
 */
abstract class AgentStoresContract {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final String DEF = "{\"sandbox\":{},\"harness\":\"command\",\"command\":\"x\"}";
    private static final String DEF2 = "{\"sandbox\":{},\"harness\":\"command\",\"command\":\"y\"}";

    private static TestDatabase db;

    static void open(TestDatabase.Kind kind) {
        db = TestDatabase.open(kind);
    }

    @AfterAll
    static void close() {
        db.close();
    }

    @BeforeEach
    void clear() {
        db.clear(AgentRow.class, AgentTurnRow.class);
    }

    private static <T> T agents(Function<JpaAgentStore, T> work) {
        return db.inTransaction(em -> work.apply(new JpaAgentStore(em)));
    }

    private static <T> T turns(Function<JpaAgentTurnStore, T> work) {
        return db.inTransaction(em -> work.apply(new JpaAgentTurnStore(em)));
    }

    private static JpaAgentStore.Put put(
            String tenant, String id, String json, Instant at, int max) {
        return agents(s -> s.put(tenant, id, json, at, max));
    }

    private static Optional<StoredAgent> find(String tenant, String id) {
        return agents(s -> s.find(tenant, id));
    }

    private static boolean delete(String tenant, String id) {
        return agents(s -> s.delete(tenant, id));
    }

    private static List<String> list(String tenant) {
        return agents(s -> s.list(tenant, 100)).stream().map(StoredAgent::agentId).toList();
    }

    private static Optional<AgentTurn> findTurn(String tenant, String runId) {
        return turns(s -> s.find(tenant, runId));
    }

    private static List<String> thread(String tenant, String agentId, String threadId, int limit) {
        return turns(s -> s.thread(tenant, agentId, threadId, limit)).stream()
                .map(AgentTurn::runId)
                .toList();
    }

    @Test
    void aDefinitionIsCreatedThenReplacedKeepingItsCreationTime() {
        assertThat(put("a", "bot", DEF, T0, 10)).isEqualTo(JpaAgentStore.Put.CREATED);
        assertThat(put("a", "bot", DEF2, T0.plusSeconds(5), 10))
                .isEqualTo(JpaAgentStore.Put.REPLACED);

        StoredAgent d = find("a", "bot").orElseThrow();
        assertThat(d.definitionJson()).isEqualTo(DEF2);
        assertThat(d.createdAt()).isEqualTo(T0);
        assertThat(d.updatedAt()).isEqualTo(T0.plusSeconds(5));
    }

    @Test
    void tenantsNeverSeeOrTouchEachOthersDefinitions() {
        put("a", "bot", DEF, T0, 10);

        assertThat(find("b", "bot")).isEmpty();
        assertThat(list("b")).isEmpty();
        assertThat(delete("b", "bot")).isFalse();
        assertThat(put("b", "bot", DEF2, T0, 10)).isEqualTo(JpaAgentStore.Put.CREATED);
        assertThat(find("a", "bot").orElseThrow().definitionJson()).isEqualTo(DEF);
        assertThat(delete("a", "bot")).isTrue();
        assertThat(delete("a", "bot")).isFalse();
        assertThat(find("b", "bot")).isPresent();
    }

    @Test
    void theListIsSortedByAgentIdAndCreatesStopAtTheBound() {
        for (String id : List.of("b", "a.x", "Z", "a-y")) {
            assertThat(put("t", id, DEF, T0, 4)).isEqualTo(JpaAgentStore.Put.CREATED);
        }
        assertThat(put("t", "c", DEF, T0, 4)).isEqualTo(JpaAgentStore.Put.FULL);
        assertThat(put("t", "b", DEF2, T0, 4))
                .as("replacing is not creating")
                .isEqualTo(JpaAgentStore.Put.REPLACED);

        assertThat(list("t")).containsExactly("Z", "a-y", "a.x", "b");
        assertThat(find("t", "c")).isEmpty();
    }

    private static AgentTurn turn(String tenant, String runId, String thread, int second) {
        return new AgentTurn(
                tenant,
                runId,
                "bot",
                thread,
                "u-" + runId,
                "text " + runId,
                T0.plusSeconds(second));
    }

    @Test
    void aTenantsRunIdHasOneTurnAndTheThreadListsNewestFirst() {
        turns(s -> run(() -> s.create(turn("a", "r1", "t", 1))));
        turns(s -> run(() -> s.create(turn("a", "r2", "t", 2))));
        turns(s -> run(() -> s.create(turn("a", "r3", "other", 3))));
        turns(s -> run(() -> s.create(turn("b", "r1", "t", 4))));

        assertThatThrownBy(() -> turns(s -> run(() -> s.create(turn("a", "r1", "t2", 5)))))
                .as("the unique (tenant, runId)")
                .isInstanceOf(RuntimeException.class);
        assertThat(findTurn("a", "r1").orElseThrow()).isEqualTo(turn("a", "r1", "t", 1));
        assertThat(thread("a", "bot", "t", 10)).containsExactly("r2", "r1");
        assertThat(thread("a", "bot", "t", 1)).containsExactly("r2");
        assertThat(thread("a", "other-bot", "t", 10)).isEmpty();

        turns(s -> run(() -> s.delete("a", "r1")));
        assertThat(findTurn("a", "r1")).isEmpty();
        assertThat(findTurn("b", "r1")).isPresent();
    }

    @Test
    void aContinuationTurnKeepsItsBaseRunAndStartPosition() {
        turns(s -> run(() -> s.create(turn("a", "r1", "t", 1))));
        AgentTurn next =
                new AgentTurn(
                        "a", "r2", "bot", "t", "m-2", "", T0.plusSeconds(2), "r1", 41_000_000_000L);
        turns(s -> run(() -> s.create(next)));

        AgentTurn read = findTurn("a", "r2").orElseThrow();
        assertThat(read).isEqualTo(next);
        assertThat(read.continuation()).isTrue();
        assertThat(findTurn("a", "r1").orElseThrow().continuation())
                .as("a turn that started its own run")
                .isFalse();
        assertThat(thread("a", "bot", "t", 10)).containsExactly("r2", "r1");
    }

    @Test
    void theAgentsThreadsListNewestTurnFirstWithTheirFirstTextCountAndTimes_AG24() {
        turns(s -> run(() -> s.create(turn("a", "r1", "old", 1))));
        turns(s -> run(() -> s.create(turn("a", "r2", "new", 2))));
        turns(s -> run(() -> s.create(turn("a", "r3", "old", 3))));
        turns(s -> run(() -> s.create(turn("a", "r4", "old", 4))));
        turns(s -> run(() -> s.create(turn("b", "r5", "tenant-b", 9))));
        turns(
                s ->
                        run(
                                () ->
                                        s.create(
                                                new AgentTurn(
                                                        "a",
                                                        "r6",
                                                        "other-bot",
                                                        "x",
                                                        "m",
                                                        "",
                                                        T0.plusSeconds(8)))));

        List<AgentThread> threads = threads("a", "bot", 10);
        assertThat(threads)
                .containsExactly(
                        new AgentThread("old", "text r1", T0.plusSeconds(1), T0.plusSeconds(4), 3),
                        new AgentThread("new", "text r2", T0.plusSeconds(2), T0.plusSeconds(2), 1));
        assertThat(threads("a", "bot", 1)).extracting(AgentThread::threadId).containsExactly("old");
        assertThat(threads("a", "nobody", 10)).isEmpty();
        assertThat(threads("b", "bot", 10))
                .extracting(AgentThread::threadId)
                .as("another tenant's threads stay its own")
                .containsExactly("tenant-b");
    }

    private static List<AgentThread> threads(String tenant, String agentId, int limit) {
        return db.inTransaction(em -> new JpaAgentTurnStore(em).threads(tenant, agentId, limit));
    }

    private static Void run(Runnable r) {
        r.run();
        return null;
    }
}
