package dev.agentbox.webhook;

import dev.agentbox.agent.store.JpaAgentStore;
import dev.agentbox.platform.NodeIdentity;
import dev.agentbox.tool.http.HostPolicy;
import dev.agentbox.tool.http.HttpToolSettings;
import dev.agentbox.webhook.store.JpaWebhookOutbox;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;

/**
 * Every server's webhook clock: a non-persistent interval timer ({@code
 * agentbox.webhooks.interval-ms}, 0: off on this server) that delivers one batch of due posts per
 * tick ({@link WebhookDelivery}).
 *
 * <p>Single-flight: a tick that comes while the previous one still posts is skipped (posts may take
 * up to their timeouts), so this server never holds two batches. No transaction: each outbox call
 * commits on its own, and no transaction stays open across a post.
 */
@Singleton
@Startup
// Its timers use the database: the schema is applied first (dev.agentbox.platform.schema).
@DependsOn("SchemaMigration")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class WebhookTimer {

    private static final Logger LOG = Logger.getLogger(WebhookTimer.class.getName());
    private static final java.time.Duration PRUNE_EVERY = java.time.Duration.ofMinutes(10);
    private static final int PRUNE_LIMIT = 1000;

    @Resource TimerService timers;

    @Inject JpaWebhookOutbox outbox;

    @Inject JpaAgentStore agents;

    @Inject NodeIdentity node;

    @Inject Clock clock;

    @Inject Config config;

    @Inject MetricRegistry metrics;

    private final AtomicBoolean busy = new AtomicBoolean();
    private WebhookDelivery delivery;
    private int batch;
    private java.time.Duration retention;

    /** When this server last pruned ended rows (every server prunes, at most every 10 min). */
    private java.time.Instant lastPrune = java.time.Instant.EPOCH;

    @PostConstruct
    void start() {
        WebhookSettings settings = WebhookSettings.fromConfig(config);
        if (settings.interval().isZero() || settings.interval().isNegative()) {
            LOG.info("webhooks: this server delivers none (agentbox.webhooks.interval-ms=0)");
            return;
        }
        batch = settings.batch();
        retention = settings.retention();
        HostPolicy hosts = new HostPolicy(HttpToolSettings.fromConfig(config).allowedHosts());
        SecureRandom random = new SecureRandom();
        delivery =
                new WebhookDelivery(
                        outbox,
                        new WebhookPoster(hosts, settings, clock),
                        agents::signingSecret,
                        settings,
                        clock,
                        node.id(),
                        random::nextDouble,
                        o ->
                                metrics.counter(
                                                "agentbox.webhooks",
                                                new Tag("outcome", o.wireName()))
                                        .inc());
        long ms = settings.interval().toMillis();
        timers.createIntervalTimer(ms, ms, new TimerConfig("webhooks", false));
        LOG.info("webhooks: delivering every " + ms + " ms");
    }

    @Timeout
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void fire() {
        if (!busy.compareAndSet(false, true)) {
            return;
        }
        try {
            // A full batch means more may be due: keep going until one comes back short.
            while (delivery.deliverDue() >= batch) {
                // next batch
            }
            java.time.Instant now = clock.instant();
            if (now.isAfter(lastPrune.plus(PRUNE_EVERY))) {
                lastPrune = now;
                int pruned = outbox.prune(now.minus(retention), PRUNE_LIMIT);
                if (pruned > 0) {
                    LOG.fine(() -> "webhooks: pruned " + pruned + " ended deliveries");
                }
            }
        } catch (RuntimeException e) {
            // A timer whose timeout throws is retried and may be cancelled; the next tick must
            // come.
            LOG.log(Level.WARNING, "webhooks: delivery tick failed", e);
        } finally {
            busy.set(false);
        }
    }
}
