package dev.agentbox.run.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.run.harness.Harness;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.EntityTransaction;
import jakarta.persistence.Persistence;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;

/**
 * Measures batched append throughput (chunks/s, one transaction per batch of 200, 100 batches,
 * after 10 warm-up batches) on Derby and PostgreSQL and prints it; asserts only that everything
 * landed.
 *
 * <p>Run by {@code bench/eventlog}: measures the unit as the server configures it ({@code
 * eclipselink.jdbc.batch-writing=JDBC}); {@code bench/eventlog all} also measures without batch
 * writing and, on PostgreSQL, with the driver's {@code reWriteBatchedInserts=true}.
 */
public final class EventLogBench {

    /** bench/eventlog [all]: measures Derby and PostgreSQL; "all" adds the unbatched variants. */
    public static void main(String[] args) {
        if (args.length > 0) {
            System.setProperty("agentbox.bench.eventlog", args[0]);
        }
        appendThroughputOnDerby();
        appendThroughputOnPostgres();
    }

    private static final int BATCHES = 100;
    private static final int BATCH = 200;
    private static final String PG_URL =
            System.getProperty(
                    "agentbox.test.pg.url",
                    "jdbc:postgresql://127.0.0.1:5432/agentbox_test?user=agentbox&password=agentbox");

    private static final Map<String, String> NO_BATCHING =
            Map.of("eclipselink.jdbc.batch-writing", "None");

    private static boolean all() {
        return "all".equals(System.getProperty("agentbox.bench.eventlog"));
    }

    static void appendThroughputOnDerby() {
        measure("derby, batch-writing=JDBC", derbyUrl(), Map.of());
        if (all()) {
            measure("derby, no batch writing", derbyUrl(), NO_BATCHING);
        }
    }

    static void appendThroughputOnPostgres() {
        measure("postgresql, batch-writing=JDBC", PG_URL, Map.of());
        if (all()) {
            measure("postgresql, no batch writing", PG_URL, NO_BATCHING);
            measure(
                    "postgresql, batch-writing=JDBC + reWriteBatchedInserts",
                    PG_URL + "&reWriteBatchedInserts=true",
                    Map.of());
        }
    }

    private static String derbyUrl() {
        return "jdbc:derby:"
                + Path.of("target", "test-derby", UUID.randomUUID().toString()).toAbsolutePath()
                + ";create=true";
    }

    private static void measure(String label, String url, Map<String, String> extra) {
        Map<String, String> props = new HashMap<>(extra);
        props.put(
                "jakarta.persistence.jdbc.driver",
                url.startsWith("jdbc:derby")
                        ? "org.apache.derby.iapi.jdbc.AutoloadedDriver"
                        : "org.postgresql.Driver");
        props.put("jakarta.persistence.jdbc.url", url);
        EntityManagerFactory emf = Persistence.createEntityManagerFactory("agentbox-test", props);
        String tenant = "bench-" + UUID.randomUUID();
        try {
            RunRef run =
                    tx(
                            emf,
                            em ->
                                    new JpaRunStore(em)
                                            .create(
                                                    NewRun.durable(
                                                            tenant,
                                                            "bench",
                                                            "t",
                                                            Harness.COMMAND,
                                                            Instant.now()))
                                            .orElseThrow()
                                            .ref());
            long epoch = tx(emf, em -> new JpaClaimStore(em).claim(run, "bench").orElseThrow());
            List<List<JsonObject>> batches = new ArrayList<>();
            for (int b = 0; b < BATCHES + 10; b++) {
                batches.add(batch(b));
            }
            for (int b = 0; b < 10; b++) { // warm-up: JIT, statement cache, connection
                List<JsonObject> chunks = batches.get(b);
                tx(emf, em -> new JpaEventLog(em).append(run, epoch, chunks));
            }
            long start = System.nanoTime();
            for (int b = 10; b < BATCHES + 10; b++) {
                List<JsonObject> chunks = batches.get(b);
                tx(emf, em -> new JpaEventLog(em).append(run, epoch, chunks));
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf(
                    "event log append, %s: %d batches x %d chunks in %.2f s = %.0f chunks/s%n",
                    label, BATCHES, BATCH, seconds, BATCHES * BATCH / seconds);
            long stored = tx(emf, em -> new JpaEventLog(em).size(run));
            assertThat(stored).isEqualTo((BATCHES + 10L) * BATCH);
            tx(
                    emf,
                    em -> {
                        em.createQuery("DELETE FROM RunEvent e WHERE e.runPk = :pk")
                                .setParameter("pk", run.id())
                                .executeUpdate();
                        em.createQuery("DELETE FROM DriverClaim c WHERE c.runPk = :pk")
                                .setParameter("pk", run.id())
                                .executeUpdate();
                        return em.createQuery("DELETE FROM RunRecord r WHERE r.runPk = :pk")
                                .setParameter("pk", run.id())
                                .executeUpdate();
                    });
        } finally {
            emf.close();
        }
    }

    /** Chunks shaped like a streaming agent's text: a type, ids, a ~100-character delta. */
    private static List<JsonObject> batch(int b) {
        List<JsonObject> chunks = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++) {
            chunks.add(
                    Json.createObjectBuilder()
                            .add("type", "TEXT_MESSAGE_CONTENT")
                            .add("threadId", "t")
                            .add("runId", "bench")
                            .add("timestamp", 1_700_000_000_000L + b * BATCH + i)
                            .add("messageId", "bench-" + b)
                            .add(
                                    "delta",
                                    "chunk "
                                            + i
                                            + " of batch "
                                            + b
                                            + " lorem ipsum dolor sit amet, consectetur adipiscing elit sed do eiusmod")
                            .build());
        }
        return chunks;
    }

    private static <T> T tx(EntityManagerFactory emf, Function<EntityManager, T> work) {
        EntityManager em = emf.createEntityManager();
        EntityTransaction tx = em.getTransaction();
        try {
            tx.begin();
            T result = work.apply(em);
            tx.commit();
            return result;
        } finally {
            if (tx.isActive()) {
                tx.rollback();
            }
            em.close();
        }
    }
}
