package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.testing.PostgresPass;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Many SSE streams at once over HTTP, checked against {@code /runs/{id}/log}: readers attach to
 * runs while their agents print, from the start or after a Last-Event-ID, some dropping midway and
 * resuming; then a burst of replays of the finished runs, whose first events are written the moment
 * each stream opens. Every stream must carry exactly the stored chunks after its offset, with their
 * offsets as ids: no gap, no duplicate.
 */
@PostgresPass
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConcurrentStreamsIT {

    static final int RUNS = 4;
    static final int LIVE_READERS_PER_RUN = 20;
    static final int REPLAYS = 40;

    /** 40 lines, a little apart, so that readers attach while the run is being appended. */
    static final String AGENT =
            "for i in $(seq 1 40); do printf '{\"delta\":\"%s\"}\\n' $i; sleep 0.05; done";

    private final Api api = Api.itServer();
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);
    private final Runs runs = new Runs(api, Api.TENANT_A);
    private final ExecutorService pool = Executors.newFixedThreadPool(128);
    private String key;

    @BeforeAll
    void sandbox() {
        key =
                sandboxes
                        .ensure("{\"definitionId\":\"streams-" + UUID.randomUUID() + "\"}")
                        .getString("key");
    }

    @AfterAll
    void cleanUp() {
        pool.shutdownNow();
        sandboxes.close();
    }

    /**
     * One client's reading: from {@code after}, dropping after {@code dropAfter} events and
     * resuming with the last id it got.
     */
    private record Reading(String runId, long after, List<SseClient.Event> events) {}

    private Reading read(String runId, long after, int dropAfter) {
        List<SseClient.Event> got = new ArrayList<>(events(runId, after, dropAfter));
        if (got.size() == dropAfter) {
            got.addAll(
                    events(runId, Long.parseLong(got.get(got.size() - 1).id()), Integer.MAX_VALUE));
        }
        return new Reading(runId, after, got);
    }

    private List<SseClient.Event> events(String runId, long after, int limit) {
        try (SseClient sse = runs.events(runId, after == 0 ? null : Long.toString(after))) {
            List<SseClient.Event> got = new ArrayList<>();
            SseClient.Event e;
            while (got.size() < limit && (e = sse.next(Duration.ofSeconds(60))) != null) {
                got.add(e);
            }
            return got;
        }
    }

    private CompletableFuture<Reading> reader(String runId) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long after = random.nextBoolean() ? 0 : random.nextInt(30);
        int dropAfter = random.nextInt(3) == 0 ? 1 + random.nextInt(10) : Integer.MAX_VALUE;
        return CompletableFuture.supplyAsync(() -> read(runId, after, dropAfter), pool);
    }

    @Test
    void everyStreamAttachedWhileRunsAppendCarriesExactlyTheStoredLogAfterItsOffset()
            throws InterruptedException {
        List<String> runIds = new ArrayList<>();
        List<CompletableFuture<Reading>> readings = new ArrayList<>();
        for (int r = 0; r < RUNS; r++) {
            String runId = "streams-" + UUID.randomUUID();
            runs.start(Runs.runBody(runId, "{\"key\":\"" + key + "\"}", AGENT, ""));
            runIds.add(runId);
        }
        // Attach live readers over the runs' lifetime (about two seconds of printing each).
        for (int i = 0; i < LIVE_READERS_PER_RUN; i++) {
            runIds.forEach(runId -> readings.add(reader(runId)));
            Thread.sleep(100);
        }
        List<Reading> live = readings.stream().map(CompletableFuture::join).toList();
        List<CompletableFuture<Reading>> replays = new ArrayList<>();
        for (int i = 0; i < REPLAYS; i++) {
            replays.add(reader(runIds.get(i % RUNS)));
        }
        List<Reading> all = new ArrayList<>(live);
        replays.forEach(f -> all.add(f.join()));

        List<String> wrong = new ArrayList<>();
        for (String runId : runIds) {
            JsonArray log =
                    Api.json(api.get(Runs.path(runId) + "/log", Api.TENANT_A)).asJsonArray();
            assertThat(log.getJsonObject(log.size() - 1).getJsonObject("chunk").getString("type"))
                    .isEqualTo("RUN_FINISHED");
            for (Reading reading : all) {
                if (reading.runId().equals(runId) && !matches(reading, log)) {
                    wrong.add(
                            runId
                                    + " after "
                                    + reading.after()
                                    + ": got ids "
                                    + reading.events().stream().map(SseClient.Event::id).toList()
                                    + " of "
                                    + log.size());
                }
            }
        }
        assertThat(wrong)
                .as("streams that differ from the stored log after their offset")
                .isEmpty();
        assertThat(all).hasSize(RUNS * LIVE_READERS_PER_RUN + REPLAYS);
    }

    private static boolean matches(Reading reading, JsonArray log) {
        List<JsonObject> expected =
                log.getValuesAs(JsonObject.class).subList((int) reading.after(), log.size());
        if (reading.events().size() != expected.size()) {
            return false;
        }
        for (int i = 0; i < expected.size(); i++) {
            SseClient.Event e = reading.events().get(i);
            JsonObject stored = expected.get(i);
            if (!e.id().equals(stored.getString("offset"))
                    || !e.name().equals(stored.getJsonObject("chunk").getString("type"))
                    || !Api.parse(e.data()).equals(stored.getJsonObject("chunk"))) {
                return false;
            }
        }
        return true;
    }
}
