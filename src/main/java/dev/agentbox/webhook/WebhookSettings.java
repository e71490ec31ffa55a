package dev.agentbox.webhook;

import java.time.Duration;

/**
 * How webhooks are delivered ({@code agentbox.webhooks.*}, docs/operations.md). The hosts a webhook
 * may reach are HTTP tools' ({@code agentbox.tools.http.allowed-hosts}).
 *
 * @param interval how often each server looks for due posts (0: this server delivers none)
 * @param batch most posts one server claims per look
 * @param maxAttempts posts of one delivery before it is {@code failed}
 * @param maxAge a delivery older than this is {@code failed} at its next failed attempt
 * @param backoffBase the wait after the first failed attempt; doubled after each further one
 * @param backoffCap the longest wait between two attempts
 * @param connectTimeout to connect to the receiver
 * @param timeout for the whole post, from connect to the receiver's status line
 * @param retention how long a delivered or failed row is kept before it is deleted
 */
public record WebhookSettings(
        Duration interval,
        int batch,
        int maxAttempts,
        Duration maxAge,
        Duration backoffBase,
        Duration backoffCap,
        Duration connectTimeout,
        Duration timeout,
        Duration retention) {

    public static WebhookSettings defaults() {
        return new WebhookSettings(
                Duration.ofSeconds(2),
                20,
                12,
                Duration.ofHours(24),
                Duration.ofSeconds(5),
                Duration.ofHours(1),
                Duration.ofSeconds(5),
                Duration.ofSeconds(10),
                Duration.ofDays(7));
    }

    /** From {@code agentbox.webhooks.*}; a key that is absent keeps its default. */
    public static WebhookSettings fromConfig(org.eclipse.microprofile.config.Config c) {
        WebhookSettings d = defaults();
        return new WebhookSettings(
                ms(c, "interval-ms", d.interval()),
                c.getOptionalValue("agentbox.webhooks.batch", Integer.class).orElse(d.batch()),
                c.getOptionalValue("agentbox.webhooks.max-attempts", Integer.class)
                        .orElse(d.maxAttempts()),
                ms(c, "max-age-ms", d.maxAge()),
                ms(c, "backoff-base-ms", d.backoffBase()),
                ms(c, "backoff-cap-ms", d.backoffCap()),
                ms(c, "connect-timeout-ms", d.connectTimeout()),
                ms(c, "timeout-ms", d.timeout()),
                ms(c, "retention-ms", d.retention()));
    }

    private static Duration ms(org.eclipse.microprofile.config.Config c, String key, Duration d) {
        return c.getOptionalValue("agentbox.webhooks." + key, Long.class)
                .map(Duration::ofMillis)
                .orElse(d);
    }

    /**
     * How long a claim lasts: long enough for the whole batch to be posted one after another at
     * their longest, plus a margin, so a live server never loses a claim mid-batch.
     */
    public Duration claimHold() {
        return connectTimeout.plus(timeout).multipliedBy(Math.max(1, batch)).plusSeconds(30);
    }

    /**
     * The wait before attempt {@code attempts + 1}: {@code base * 2^(attempts-1)} capped at {@code
     * cap}, then a random share in [50 %, 100 %] of it ({@code jitter} in [0, 1)) so that many
     * deliveries failing together do not come back together.
     */
    public Duration backoff(int attempts, double jitter) {
        long base = backoffBase.toMillis();
        long cap = backoffCap.toMillis();
        int shift = Math.max(0, Math.min(attempts - 1, 40));
        long full = base > (cap >> shift) ? cap : Math.min(cap, base << shift);
        return Duration.ofMillis(full / 2 + (long) (full / 2.0 * jitter));
    }
}
