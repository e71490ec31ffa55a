package dev.agentbox.quota;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalInt;

/**
 * A tenant is at one of its {@link Quota}s: {@code 429 quota-exceeded} with {@code quota} (which
 * one), {@code limit} (the number) and {@code scope} ({@code cluster} or {@code server}), plus a
 * {@code Retry-After} hint where slots free themselves.
 */
public class QuotaExceededException extends ProblemException {

    private final Quota quota;
    private final int limit;

    public QuotaExceededException(Quota quota, int limit) {
        super(ProblemCode.QUOTA_EXCEEDED, detail(quota, limit), extensions(quota, limit), null);
        this.quota = quota;
        this.limit = limit;
    }

    public Quota quota() {
        return quota;
    }

    public int limit() {
        return limit;
    }

    public OptionalInt retryAfterSeconds() {
        return quota.retryAfterSeconds();
    }

    private static String detail(Quota quota, int limit) {
        String where = quota.scope() == Quota.Scope.SERVER ? " on this server" : "";
        return "This tenant is at its limit of "
                + limit
                + " "
                + quota.wireName()
                + where
                + " (agentbox.quotas."
                + quota.configName()
                + ").";
    }

    private static Map<String, Object> extensions(Quota quota, int limit) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("quota", quota.wireName());
        m.put("limit", limit);
        m.put("scope", quota.scope().name().toLowerCase(java.util.Locale.ROOT));
        return m;
    }
}
