package dev.agentbox.webhook;

import dev.agentbox.tool.http.ToolCallFailure;
import dev.agentbox.webhook.store.Claimed;
import dev.agentbox.webhook.store.WebhookOutbox;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;
import java.util.logging.Logger;

/**
 * One server's share of the outbox: claims due posts in a batch and posts each once, recording the
 * outcome: a {@code 2xx} is {@code delivered}; anything else (another status, a refused host, a
 * timeout) is retried after {@link WebhookSettings#backoff}, until {@link
 * WebhookSettings#maxAttempts} posts or {@link WebhookSettings#maxAge} make it {@code failed}.
 *
 * <p>Every server runs this; the outbox's claims keep two of them off one row. A server that dies
 * between a post and its record leaves the row to be posted again once the claim runs out: at least
 * once, never lost. Logs name the delivery id and the host, never the secret or the body.
 */
public final class WebhookDelivery {

    private static final Logger LOG = Logger.getLogger(WebhookDelivery.class.getName());

    /**
     * The signing secret of a definition: empty when the definition no longer exists, {@code ""}
     * when it has none (stored before definitions had one: posted unsigned).
     */
    @FunctionalInterface
    public interface Secrets {
        Optional<String> of(String tenant, String agentId);
    }

    /** How a post ended, as counted in {@code agentbox_webhooks_total{outcome}}. */
    public enum Outcome {
        DELIVERED,
        RETRIED,
        FAILED,
        /** The claim ran out before the outcome could be recorded: another server has the row. */
        LOST_CLAIM;

        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
    }

    private final WebhookOutbox outbox;
    private final WebhookPoster poster;
    private final Secrets secrets;
    private final WebhookSettings settings;
    private final Clock clock;
    private final String server;
    private final DoubleSupplier jitter;
    private final Consumer<Outcome> counted;

    public WebhookDelivery(
            WebhookOutbox outbox,
            WebhookPoster poster,
            Secrets secrets,
            WebhookSettings settings,
            Clock clock,
            String server,
            DoubleSupplier jitter,
            Consumer<Outcome> counted) {
        this.outbox = outbox;
        this.poster = poster;
        this.secrets = secrets;
        this.settings = settings;
        this.clock = clock;
        this.server = server;
        this.jitter = jitter;
        this.counted = counted;
    }

    /** Claims one batch of due posts and posts them in turn; returns how many were claimed. */
    public int deliverDue() {
        List<Claimed> batch =
                outbox.claim(server, clock.instant(), settings.claimHold(), settings.batch());
        for (Claimed c : batch) {
            counted.accept(deliver(c));
        }
        return batch.size();
    }

    private Outcome deliver(Claimed c) {
        URI url = URI.create(c.url());
        Optional<String> secret = secrets.of(c.tenant(), c.agentId());
        if (secret.isEmpty()) {
            return fail(c, url, "agent definition " + c.agentId() + " no longer exists");
        }
        String error;
        try {
            int status =
                    poster.post(
                            url,
                            secret.get(),
                            c.deliveryId(),
                            c.event(),
                            c.payload().getBytes(StandardCharsets.UTF_8));
            if (status >= 200 && status < 300) {
                return outbox.delivered(c.rowId(), server, clock.instant())
                        ? Outcome.DELIVERED
                        : Outcome.LOST_CLAIM;
            }
            error = "receiver answered status " + status;
        } catch (ToolCallFailure e) {
            error = e.getMessage();
        }
        Instant now = clock.instant();
        if (c.attempts() >= settings.maxAttempts()
                || !c.createdAt().plus(settings.maxAge()).isAfter(now)) {
            return fail(c, url, error + " (attempt " + c.attempts() + ", giving up)");
        }
        Duration wait = settings.backoff(c.attempts(), jitter.getAsDouble());
        LOG.info(
                () ->
                        "webhook delivery "
                                + c.deliveryId()
                                + " to "
                                + url.getHost()
                                + " attempt "
                                + c.attempts()
                                + " failed, retrying in "
                                + wait.toMillis()
                                + " ms");
        return outbox.retry(c.rowId(), server, now.plus(wait), error)
                ? Outcome.RETRIED
                : Outcome.LOST_CLAIM;
    }

    private Outcome fail(Claimed c, URI url, String error) {
        LOG.warning(
                () ->
                        "webhook delivery "
                                + c.deliveryId()
                                + " ("
                                + c.event().wireName()
                                + ") to "
                                + url.getHost()
                                + " failed for good: "
                                + error);
        return outbox.failed(c.rowId(), server, clock.instant(), error)
                ? Outcome.FAILED
                : Outcome.LOST_CLAIM;
    }
}
