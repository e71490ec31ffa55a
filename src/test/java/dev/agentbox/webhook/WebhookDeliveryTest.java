package dev.agentbox.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.agentbox.agent.WebhookEvent;
import dev.agentbox.platform.TestDatabase;
import dev.agentbox.testing.SettableClock;
import dev.agentbox.tool.http.HostPolicy;
import dev.agentbox.tool.http.RequestSigner;
import dev.agentbox.webhook.store.JpaWebhookOutbox;
import dev.agentbox.webhook.store.NewDelivery;
import dev.agentbox.webhook.store.OutboxEntry;
import dev.agentbox.webhook.store.OutboxRow;
import dev.agentbox.webhook.store.WebhookOutbox;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Delivery against a real receiver on loopback (allowed by the test's host policy), over the outbox
 * on embedded Derby, with the test's clock.
 */
class WebhookDeliveryTest {

    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    private static final String SECRET = "whsec_test-secret";

    private static TestDatabase db;
    private static WebhookOutbox outbox;

    /** What the receiver got: headers of interest and the body. */
    record Received(String signature, String timestamp, String delivery, String body) {}

    private HttpServer receiver;
    private final List<Received> received = Collections.synchronizedList(new ArrayList<>());
    private final ConcurrentLinkedQueue<Integer> answers = new ConcurrentLinkedQueue<>();
    private final SettableClock clock = new SettableClock(T0);
    private final Map<WebhookDelivery.Outcome, AtomicInteger> counts =
            new EnumMap<>(WebhookDelivery.Outcome.class);
    private final WebhookSettings settings =
            new WebhookSettings(
                    Duration.ofSeconds(1),
                    10,
                    3,
                    Duration.ofHours(1),
                    Duration.ofSeconds(10),
                    Duration.ofMinutes(5),
                    Duration.ofSeconds(2),
                    Duration.ofSeconds(5),
                    Duration.ofDays(7));

    @BeforeAll
    static void openDerby() {
        db = TestDatabase.open(TestDatabase.Kind.DERBY);
        outbox = db.transactional(WebhookOutbox.class, JpaWebhookOutbox::new);
    }

    @AfterAll
    static void close() {
        db.close();
    }

    @BeforeEach
    void start() throws Exception {
        db.clear(OutboxRow.class);
        for (WebhookDelivery.Outcome o : WebhookDelivery.Outcome.values()) {
            counts.put(o, new AtomicInteger());
        }
        receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        receiver.createContext(
                "/hook",
                ex -> {
                    byte[] body = ex.getRequestBody().readAllBytes();
                    received.add(
                            new Received(
                                    ex.getRequestHeaders().getFirst(RequestSigner.SIGNATURE_HEADER),
                                    ex.getRequestHeaders().getFirst(RequestSigner.TIMESTAMP_HEADER),
                                    ex.getRequestHeaders().getFirst(WebhookPoster.DELIVERY_HEADER),
                                    new String(body, StandardCharsets.UTF_8)));
                    Integer status = answers.poll();
                    byte[] answer = "a body that is never read".repeat(1000).getBytes();
                    ex.sendResponseHeaders(status == null ? 204 : status, answer.length);
                    ex.getResponseBody().write(answer);
                    ex.close();
                });
        receiver.start();
    }

    @AfterEach
    void stop() {
        receiver.stop(0);
    }

    private String url() {
        return "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
    }

    private WebhookDelivery server(String name, Set<String> allowed) {
        return new WebhookDelivery(
                outbox,
                new WebhookPoster(new HostPolicy(allowed), settings, clock),
                (tenant, agentId) ->
                        agentId.equals("gone") ? Optional.empty() : Optional.of(SECRET),
                settings,
                clock,
                name,
                () -> 0.0,
                o -> counts.get(o).incrementAndGet());
    }

    private WebhookDelivery server(String name) {
        return server(name, Set.of("127.0.0.1"));
    }

    private void queue(String id, String url, String agentId) {
        db.inTransaction(
                em -> {
                    new JpaWebhookOutbox(em)
                            .enqueue(
                                    List.of(
                                            new NewDelivery(
                                                    id,
                                                    url,
                                                    "t",
                                                    agentId,
                                                    WebhookEvent.RUN_FINISHED,
                                                    "{\"id\":\""
                                                            + id
                                                            + "\",\"event\":\"run.finished\"}",
                                                    clock.instant())));
                    return null;
                });
    }

    private OutboxEntry entry(String id) {
        return outbox.byDeliveryId(id).get(0);
    }

    @Test
    void aDeliveryIsPostedSignedWithTheDefinitionsSecret() {
        queue("d1", url(), "bot");
        assertThat(server("s1").deliverDue()).isEqualTo(1);
        assertThat(received).hasSize(1);
        Received r = received.get(0);
        assertThat(r.body()).isEqualTo("{\"id\":\"d1\",\"event\":\"run.finished\"}");
        assertThat(r.timestamp()).isEqualTo(String.valueOf(T0.getEpochSecond()));
        assertThat(r.signature())
                .isEqualTo(
                        RequestSigner.sign(
                                SECRET.getBytes(StandardCharsets.UTF_8),
                                Long.parseLong(r.timestamp()),
                                r.body().getBytes(StandardCharsets.UTF_8)));
        assertThat(r.delivery()).isEqualTo("d1");
        assertThat(entry("d1").state()).isEqualTo(OutboxRow.State.DELIVERED);
        assertThat(counts.get(WebhookDelivery.Outcome.DELIVERED)).hasValue(1);
    }

    @Test
    void aFiveHundredIsRetriedAfterItsBackoffThenDeliveredOnceWithTheSameId() {
        answers.add(500);
        queue("d1", url(), "bot");
        WebhookDelivery s = server("s1");
        s.deliverDue();
        OutboxEntry waiting = entry("d1");
        assertThat(waiting.state()).isEqualTo(OutboxRow.State.PENDING);
        assertThat(waiting.lastError()).contains("500");
        // Jitter 0: half of the 10 s base.
        assertThat(waiting.nextAttemptAt()).isEqualTo(T0.plusSeconds(5));
        clock.advance(Duration.ofSeconds(4));
        assertThat(s.deliverDue()).isZero();
        clock.advance(Duration.ofSeconds(1));
        assertThat(s.deliverDue()).isEqualTo(1);
        clock.advance(Duration.ofHours(1));
        assertThat(s.deliverDue()).isZero();
        assertThat(received).hasSize(2);
        assertThat(received).extracting(Received::body).containsOnly(received.get(0).body());
        assertThat(received).extracting(Received::delivery).containsOnly("d1");
        assertThat(entry("d1").state()).isEqualTo(OutboxRow.State.DELIVERED);
        assertThat(entry("d1").attempts()).isEqualTo(2);
        assertThat(counts.get(WebhookDelivery.Outcome.RETRIED)).hasValue(1);
        assertThat(counts.get(WebhookDelivery.Outcome.DELIVERED)).hasValue(1);
    }

    @Test
    void afterMaxAttemptsADeliveryFailsForGood() {
        answers.addAll(List.of(503, 503, 503, 503));
        queue("d1", url(), "bot");
        WebhookDelivery s = server("s1");
        for (int i = 0; i < 5; i++) {
            s.deliverDue();
            clock.advance(Duration.ofMinutes(10));
        }
        assertThat(received).hasSize(3);
        OutboxEntry e = entry("d1");
        assertThat(e.state()).isEqualTo(OutboxRow.State.FAILED);
        assertThat(e.lastError()).contains("503", "giving up");
        assertThat(counts.get(WebhookDelivery.Outcome.FAILED)).hasValue(1);
    }

    @Test
    void aClaimOfAServerThatDiedRunsOutAndAnotherServerDelivers() {
        queue("d1", url(), "bot");
        // The dead server claimed the row and never posted or recorded anything.
        assertThat(outbox.claim("dead", clock.instant(), settings.claimHold(), 10)).hasSize(1);
        WebhookDelivery live = server("live");
        assertThat(live.deliverDue()).isZero();
        clock.advance(settings.claimHold());
        assertThat(live.deliverDue()).isEqualTo(1);
        assertThat(received).extracting(Received::delivery).containsExactly("d1");
        assertThat(entry("d1").state()).isEqualTo(OutboxRow.State.DELIVERED);
        assertThat(entry("d1").attempts()).isEqualTo(2);
    }

    @Test
    void aHostThatIsNotAllowedOrResolvesToLoopbackUnlistedIsRefusedWithoutConnecting() {
        queue("meta", "http://169.254.169.254/latest/meta-data", "bot");
        queue("named", "http://localhost:" + receiver.getAddress().getPort() + "/hook", "bot");
        server("s1", Set.of("localhost")).deliverDue();
        assertThat(received).isEmpty();
        assertThat(entry("meta").lastError()).contains("169.254.169.254", "not allowed");
        assertThat(entry("named").lastError()).contains("loopback");
        assertThat(entry("meta").state()).isEqualTo(OutboxRow.State.PENDING);
    }

    @Test
    void aDeliveryOfADeletedDefinitionFailsWithoutBeingPosted() {
        queue("d1", url(), "gone");
        server("s1").deliverDue();
        assertThat(received).isEmpty();
        assertThat(entry("d1").state()).isEqualTo(OutboxRow.State.FAILED);
        assertThat(entry("d1").lastError()).contains("no longer exists");
    }

    @Test
    void backoffDoublesPerAttemptUpToItsCapWithJitterInTheUpperHalf() {
        assertThat(settings.backoff(1, 0.0)).isEqualTo(Duration.ofSeconds(5));
        assertThat(settings.backoff(1, 0.999))
                .isBetween(Duration.ofSeconds(9), Duration.ofSeconds(10));
        assertThat(settings.backoff(3, 0.0)).isEqualTo(Duration.ofSeconds(20));
        assertThat(settings.backoff(30, 0.0)).isEqualTo(Duration.ofSeconds(150));
        assertThat(settings.backoff(500, 1.0)).isEqualTo(Duration.ofMinutes(5));
    }
}
