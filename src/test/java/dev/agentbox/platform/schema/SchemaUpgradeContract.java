package dev.agentbox.platform.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.platform.TestDatabase;
import dev.agentbox.run.Alignment;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.store.ClaimStore;
import dev.agentbox.run.store.EventLog;
import dev.agentbox.run.store.FinishResult;
import dev.agentbox.run.store.JpaClaimStore;
import dev.agentbox.run.store.JpaEventLog;
import dev.agentbox.run.store.JpaRunStore;
import dev.agentbox.run.store.LoggedChunk;
import dev.agentbox.run.store.NewRun;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.run.store.RunStatus;
import dev.agentbox.run.store.RunStore;
import dev.agentbox.run.store.StaleEpochException;
import dev.agentbox.run.store.StoredChunk;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A database made by the release before the versioned schema (EclipseLink's {@code
 * create-or-extend-tables}), holding a finished run and a live one (claimed, with journal chunks),
 * is adopted by the first start of the versioned schema: no table or row changes, every change set
 * is recorded, and a successor takes the live run over with fingerprints that still align with the
 * stored log.
 */
abstract class SchemaUpgradeContract {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    /** A URL of an empty database of this kind. */
    abstract String emptyDatabase();

    private record Stores(RunStore runs, ClaimStore claims, EventLog log) {
        static Stores on(TestDatabase db) {
            return new Stores(
                    db.transactional(RunStore.class, JpaRunStore::new),
                    db.transactional(ClaimStore.class, JpaClaimStore::new),
                    db.transactional(EventLog.class, JpaEventLog::new));
        }
    }

    @Test
    void aDatabaseOfThePreviousReleaseIsAdoptedWithItsLiveRunAndItsFingerprints() throws Exception {
        String url = emptyDatabase();
        List<JsonObject> liveJournal = journal("live", 5);
        List<JsonObject> doneJournal = journal("done", 3);

        // The previous release: tables made by EclipseLink, rows written by its stores.
        RunRecordView doneBefore;
        RunRecordView liveBefore;
        List<LoggedChunk> liveLogBefore;
        List<StoredChunk> liveFingerprintsBefore;
        List<String> shapeBefore;
        long oldEpoch;
        try (TestDatabase old = TestDatabase.createdByEntities(url)) {
            Stores s = Stores.on(old);
            RunRef done = s.runs.create(run("done")).orElseThrow().ref();
            long doneEpoch = s.claims.claim(done, "node-old").orElseThrow();
            s.log.append(done, doneEpoch, List.of(accepted("done")));
            s.log.append(done, doneEpoch, doneJournal);
            assertThat(
                            s.log.finishRun(
                                    done,
                                    doneEpoch,
                                    RunStatus.COMPLETED,
                                    T0.plusSeconds(9),
                                    Optional.empty()))
                    .isEqualTo(FinishResult.FINISHED);

            RunRef live = s.runs.create(run("live")).orElseThrow().ref();
            long liveEpoch = s.claims.claim(live, "node-old").orElseThrow();
            oldEpoch = liveEpoch;
            s.log.append(live, liveEpoch, List.of(accepted("live")));
            s.log.append(live, liveEpoch, liveJournal.subList(0, 3));
            s.runs.setSandboxKey(live, Optional.of("sandbox-1"));
            try (Connection c = old.dataSource().getConnection();
                    Statement st = c.createStatement()) {
                st.executeUpdate(
                        "INSERT INTO AB_INSTALLATION (ID, INSTALLATION_ID, CREATED_AT)"
                                + " VALUES ('installation', 'inst-old', CURRENT_TIMESTAMP)");
            }

            doneBefore = s.runs.findById(done).orElseThrow();
            liveBefore = s.runs.findById(live).orElseThrow();
            liveLogBefore = s.log.read(live, 0, 100);
            liveFingerprintsBefore = s.log.fingerprints(live);
            shapeBefore = SchemaShape.of(old.dataSource());
        }

        // The first start of the versioned schema on it.
        try (TestDatabase adopted = TestDatabase.openMigrated(url, Map.of())) {
            assertThat(SchemaShape.of(adopted.dataSource()))
                    .as("adoption changes no table")
                    .containsExactlyElementsOf(shapeBefore);
            assertThat(recordedTableChangeSets(adopted))
                    .as("every table's change set recorded as run, none executed")
                    .hasSize(12)
                    .allSatisfy(execType -> assertThat(execType).isEqualTo("MARK_RAN"));

            Stores s = Stores.on(adopted);
            assertThat(s.runs.findById(doneBefore.ref())).contains(doneBefore);
            assertThat(s.runs.findById(liveBefore.ref())).contains(liveBefore);
            assertThat(s.log.read(liveBefore.ref(), 0, 100))
                    .containsExactlyElementsOf(liveLogBefore);
            assertThat(s.log.size(doneBefore.ref())).isEqualTo(1 + doneJournal.size());
            try (Connection c = adopted.dataSource().getConnection();
                    Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SELECT INSTALLATION_ID FROM AB_INSTALLATION")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("inst-old");
            }

            // A successor takes the live run over: it re-reads the whole journal, the stored
            // prefix aligns by fingerprint, and only the rest is appended under its epoch.
            RunRef live = liveBefore.ref();
            List<StoredChunk> stored = s.log.fingerprints(live);
            assertThat(stored).containsExactlyElementsOf(liveFingerprintsBefore);
            long successorEpoch = s.claims.claim(live, "node-new").orElseThrow();
            assertThat(successorEpoch).isEqualTo(oldEpoch + 1);
            Alignment alignment = new Alignment(stored, "live", "thread-1");
            List<JsonObject> remainder = new ArrayList<>();
            for (JsonObject replayed : retimed(liveJournal)) {
                alignment.offer(replayed).ifPresent(remainder::add);
            }
            alignment.finish();
            assertThat(remainder).hasSize(2);
            s.log.append(live, successorEpoch, remainder);
            assertThatThrownBy(() -> s.log.append(live, oldEpoch, List.of(liveJournal.get(0))))
                    .as("the old driver is fenced out")
                    .isInstanceOf(StaleEpochException.class);
            assertThat(
                            s.log.finishRun(
                                    live,
                                    successorEpoch,
                                    RunStatus.COMPLETED,
                                    T0.plusSeconds(20),
                                    Optional.empty()))
                    .isEqualTo(FinishResult.FINISHED);
            assertThat(s.log.read(live, 0, 100))
                    .extracting(LoggedChunk::seq)
                    .containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
        }

        // The next start finds nothing to do.
        try (TestDatabase again = TestDatabase.openMigrated(url, Map.of());
                Connection c = again.dataSource().getConnection()) {
            assertThat(new SchemaMigrator(java.time.Duration.ofSeconds(30)).migrate(c).applied())
                    .isZero();
        }
    }

    private static List<String> recordedTableChangeSets(TestDatabase db) throws Exception {
        List<String> execTypes = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection();
                Statement st = c.createStatement();
                ResultSet rs =
                        st.executeQuery(
                                "SELECT ID, EXECTYPE FROM DATABASECHANGELOG WHERE ID LIKE '1-ab-%'")) {
            while (rs.next()) {
                execTypes.add(rs.getString("EXECTYPE"));
            }
        }
        return execTypes;
    }

    private static NewRun run(String runId) {
        return NewRun.durable("tenant-upgrade", runId, "thread-1", Harness.COMMAND, T0);
    }

    private static JsonObject accepted(String runId) {
        return Json.createObjectBuilder()
                .add("type", "CUSTOM")
                .add("name", "run.accepted")
                .add("value", Json.createObjectBuilder().add("runId", runId))
                .add("threadId", "thread-1")
                .add("runId", runId)
                .add("timestamp", 1)
                .build();
    }

    /** What a translator made of a journal's lines: text chunks with timestamps. */
    private static List<JsonObject> journal(String runId, int n) {
        List<JsonObject> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(
                    Json.createObjectBuilder()
                            .add("type", "TEXT_MESSAGE_CONTENT")
                            .add("threadId", "thread-1")
                            .add("runId", runId)
                            .add("messageId", runId + "-m")
                            .add("delta", "line " + i + " é ✓")
                            .add("timestamp", 1000 + i)
                            .build());
        }
        return out;
    }

    /** The same chunks as a successor's re-translation makes them: other timestamps. */
    private static List<JsonObject> retimed(List<JsonObject> chunks) {
        return chunks.stream()
                .map(c -> Json.createObjectBuilder(c).add("timestamp", 99_000).build())
                .toList();
    }
}
