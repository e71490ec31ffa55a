package dev.agentbox.webhook.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.agent.WebhookEvent;
import dev.agentbox.platform.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The webhook outbox on a real database (each backend a subclass). Time is the test's: every call
 * is given its {@code now}, so claims expire and retries come due without waiting.
 */
abstract class WebhookOutboxContract {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final Duration HOLD = Duration.ofSeconds(30);

    private static TestDatabase db;
    private static WebhookOutbox outbox;

    static void open(TestDatabase.Kind kind) {
        db = TestDatabase.open(kind);
        outbox = db.transactional(WebhookOutbox.class, JpaWebhookOutbox::new);
    }

    @AfterAll
    static void close() {
        db.close();
    }

    @BeforeEach
    void clear() {
        db.clear(OutboxRow.class);
    }

    private static NewDelivery delivery(String id, String url, Instant at) {
        return new NewDelivery(
                id, url, "t", "bot", WebhookEvent.RUN_FINISHED, "{\"id\":\"" + id + "\"}", at);
    }

    private static Claimed only(List<Claimed> claimed) {
        assertThat(claimed).hasSize(1);
        return claimed.get(0);
    }

    @Test
    void aQueuedDeliveryIsClaimedByOneServerOnlyWhileItsClaimLasts() {
        outbox.enqueue(List.of(delivery("d1", "https://h/a", T0)));
        Claimed c = only(outbox.claim("s1", T0, HOLD, 10));
        assertThat(c.deliveryId()).isEqualTo("d1");
        assertThat(c.attempts()).isEqualTo(1);
        assertThat(c.payload()).isEqualTo("{\"id\":\"d1\"}");
        assertThat(outbox.claim("s2", T0.plusSeconds(29), HOLD, 10)).isEmpty();
    }

    @Test
    void aClaimThatRanOutGoesToAnotherServerAndTheFirstCanNoLongerRecordItsOutcome() {
        outbox.enqueue(List.of(delivery("d1", "https://h/a", T0)));
        Claimed first = only(outbox.claim("dead", T0, HOLD, 10));
        Claimed second = only(outbox.claim("s2", T0.plus(HOLD), HOLD, 10));
        assertThat(second.rowId()).isEqualTo(first.rowId());
        assertThat(second.attempts()).isEqualTo(2);
        assertThat(outbox.delivered(first.rowId(), "dead", T0.plus(HOLD))).isFalse();
        assertThat(outbox.delivered(second.rowId(), "s2", T0.plus(HOLD))).isTrue();
        OutboxEntry e = outbox.byDeliveryId("d1").get(0);
        assertThat(e.state()).isEqualTo(OutboxRow.State.DELIVERED);
        assertThat(e.claimedBy()).isNull();
        assertThat(outbox.claim("s3", T0.plus(Duration.ofDays(1)), HOLD, 10)).isEmpty();
    }

    @Test
    void aRetryComesDueAtItsNextAttemptKeepingItsErrorAndCountingAttempts() {
        outbox.enqueue(List.of(delivery("d1", "https://h/a", T0)));
        Claimed c = only(outbox.claim("s1", T0, HOLD, 10));
        assertThat(outbox.retry(c.rowId(), "s1", T0.plusSeconds(10), "status 500")).isTrue();
        assertThat(outbox.retry(c.rowId(), "s1", T0.plusSeconds(10), "twice")).isFalse();
        assertThat(outbox.claim("s1", T0.plusSeconds(9), HOLD, 10)).isEmpty();
        OutboxEntry waiting = outbox.byDeliveryId("d1").get(0);
        assertThat(waiting.lastError()).isEqualTo("status 500");
        assertThat(waiting.nextAttemptAt()).isEqualTo(T0.plusSeconds(10));
        Claimed again = only(outbox.claim("s2", T0.plusSeconds(10), HOLD, 10));
        assertThat(again.attempts()).isEqualTo(2);
        assertThat(outbox.failed(again.rowId(), "s2", T0.plusSeconds(11), "x".repeat(900)))
                .isTrue();
        OutboxEntry failed = outbox.byDeliveryId("d1").get(0);
        assertThat(failed.state()).isEqualTo(OutboxRow.State.FAILED);
        assertThat(failed.lastError()).hasSize(JpaWebhookOutbox.MAX_ERROR);
        assertThat(failed.finishedAt()).isEqualTo(T0.plusSeconds(11));
        assertThat(outbox.claim("s3", T0.plus(Duration.ofDays(1)), HOLD, 10)).isEmpty();
    }

    @Test
    void oneDeliveryGoesToEachUrlOnceAndIsNeverQueuedTwiceForAUrl() {
        outbox.enqueue(
                List.of(delivery("d1", "https://h/a", T0), delivery("d1", "https://h/b", T0)));
        assertThat(outbox.byDeliveryId("d1"))
                .extracting(OutboxEntry::url)
                .containsExactly("https://h/a", "https://h/b");
        Claimed c = outbox.claim("s1", T0, HOLD, 1).get(0);
        outbox.delivered(c.rowId(), "s1", T0);
        outbox.enqueue(List.of(delivery("d1", "https://h/a", T0.plusSeconds(5))));
        assertThat(outbox.byDeliveryId("d1")).hasSize(2);
        assertThat(outbox.byDeliveryId("d1"))
                .filteredOn(e -> e.rowId().equals(c.rowId()))
                .extracting(OutboxEntry::state)
                .containsExactly(OutboxRow.State.DELIVERED);
    }

    @Test
    void claimsTakeTheOldestDueFirstInBatchesOfTheLimit() {
        List<NewDelivery> all = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            all.add(delivery("d" + i, "https://h/a", T0.plusSeconds(i)));
        }
        all.add(delivery("later", "https://h/a", T0.plusSeconds(100)));
        outbox.enqueue(all);
        assertThat(outbox.claim("s1", T0.plusSeconds(10), HOLD, 3))
                .extracting(Claimed::deliveryId)
                .containsExactly("d0", "d1", "d2");
        assertThat(outbox.claim("s2", T0.plusSeconds(10), HOLD, 3))
                .extracting(Claimed::deliveryId)
                .containsExactly("d3", "d4");
    }

    @Test
    void pruningDeletesOnlyRowsThatEndedBeforeTheCutoffNeverPendingOnes() {
        outbox.enqueue(
                List.of(
                        delivery("old", "https://h/a", T0),
                        delivery("failed", "https://h/a", T0.plusSeconds(1)),
                        delivery("recent", "https://h/a", T0.plusSeconds(2)),
                        delivery("pending", "https://h/a", T0.plusSeconds(3))));
        List<Claimed> c = outbox.claim("s1", T0.plusSeconds(2), HOLD, 3);
        outbox.delivered(c.get(0).rowId(), "s1", T0.plusSeconds(10));
        outbox.failed(c.get(1).rowId(), "s1", T0.plusSeconds(11), "gone");
        outbox.delivered(c.get(2).rowId(), "s1", T0.plusSeconds(100));
        assertThat(outbox.prune(T0.plus(Duration.ofDays(30)), 1)).isEqualTo(1);
        assertThat(outbox.prune(T0.plusSeconds(50), 10)).isEqualTo(1);
        assertThat(outbox.byDeliveryId("recent")).hasSize(1);
        assertThat(outbox.byDeliveryId("pending")).hasSize(1);
        assertThat(outbox.byDeliveryId("old")).isEmpty();
        assertThat(outbox.byDeliveryId("failed")).isEmpty();
        assertThat(outbox.prune(T0.plus(Duration.ofDays(30)), 10)).isEqualTo(1);
        assertThat(outbox.byDeliveryId("pending")).hasSize(1);
    }

    @Test
    void twoServersClaimingAtOnceNeverTakeTheSameRow() throws Exception {
        List<NewDelivery> all = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            all.add(delivery("d" + i, "https://h/a", T0));
        }
        outbox.enqueue(all);
        List<String> taken = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(2);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (String server : List.of("s1", "s2")) {
                futures.add(
                        pool.submit(
                                () -> {
                                    go.await();
                                    for (int round = 0; round < 10; round++) {
                                        outbox.claim(server, T0, HOLD, 4).stream()
                                                .map(Claimed::deliveryId)
                                                .forEach(taken::add);
                                    }
                                    return null;
                                }));
            }
            go.countDown();
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        Set<String> distinct = new HashSet<>(taken);
        assertThat(taken).hasSize(distinct.size());
        assertThat(distinct).hasSize(40);
    }
}
