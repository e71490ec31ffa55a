package dev.agentbox.agent;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One webhook of an agent definition: {@code {"url","events":[…]}}.
 *
 * <p>Invariants: {@code url} is absolute {@code http} or {@code https} with a host and at most
 * {@value #MAX_URL_LENGTH} characters; {@code events} is not empty and holds each event once.
 * Whether the host may be reached is checked when the definition is stored ({@link
 * #requireAllowed}) and again, with its resolved address, at every delivery.
 */
public record Webhook(URI url, Set<WebhookEvent> events) {

    /** Most webhooks one definition may carry. */
    public static final int MAX_WEBHOOKS = 8;

    /** The width of the outbox's url column. */
    public static final int MAX_URL_LENGTH = 2000;

    public Webhook {
        events = Set.copyOf(events);
    }

    /**
     * Reads a definition's {@code webhooks} (absent or null: none), naming the offending field in a
     * {@code 400 invalid-request} ({@code webhooks[0].url}, {@code webhooks[1].events[2]}).
     */
    public static List<Webhook> parseAll(JsonValue v) {
        if (v == null || v == JsonValue.NULL) {
            return List.of();
        }
        if (!(v instanceof JsonArray a)) {
            throw invalid("webhooks", "must be an array of {\"url\",\"events\"}");
        }
        if (a.size() > MAX_WEBHOOKS) {
            throw invalid("webhooks", "holds more than " + MAX_WEBHOOKS + " webhooks");
        }
        List<Webhook> out = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            out.add(parse(a.get(i), "webhooks[" + i + "]"));
        }
        return List.copyOf(out);
    }

    private static Webhook parse(JsonValue v, String field) {
        if (!(v instanceof JsonObject o)) {
            throw invalid(field, "must be an object {\"url\",\"events\"}");
        }
        for (String k : o.keySet()) {
            if (!k.equals("url") && !k.equals("events")) {
                throw invalid(field + "." + k, "is not a known field");
            }
        }
        URI url = url(o.get("url"), field + ".url");
        if (!(o.get("events") instanceof JsonArray events) || events.isEmpty()) {
            throw invalid(
                    field + ".events",
                    "must be a non-empty array of interrupt.requested, run.finished, run.failed");
        }
        Set<WebhookEvent> set = EnumSet.noneOf(WebhookEvent.class);
        for (int j = 0; j < events.size(); j++) {
            String ef = field + ".events[" + j + "]";
            WebhookEvent e =
                    events.get(j) instanceof JsonString s
                            ? WebhookEvent.of(s.getString()).orElse(null)
                            : null;
            if (e == null) {
                throw invalid(
                        ef, "is not an event: interrupt.requested, run.finished or run.failed");
            }
            if (!set.add(e)) {
                throw invalid(ef, "repeats the event " + e.wireName());
            }
        }
        return new Webhook(url, set);
    }

    private static URI url(JsonValue v, String field) {
        if (!(v instanceof JsonString s)) {
            throw invalid(field, "is required: an http:// or https:// url");
        }
        URI u;
        try {
            u = new URI(s.getString());
        } catch (URISyntaxException e) {
            throw invalid(field, "is not a url: " + e.getReason());
        }
        if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme()))
                || u.getHost() == null) {
            throw invalid(field, "must be an absolute http:// or https:// url with a host");
        }
        if (u.getRawUserInfo() != null) {
            throw invalid(field, "must not carry user info (the request is signed instead)");
        }
        if (s.getString().length() > MAX_URL_LENGTH) {
            throw invalid(field, "is longer than " + MAX_URL_LENGTH + " characters");
        }
        return u;
    }

    /**
     * Refuses a webhook whose host the operator does not allow ({@code
     * agentbox.tools.http.allowed-hosts}, shared with HTTP tools), naming {@code webhooks[i].url}.
     * Only the name is checked here; its address is checked at each delivery.
     */
    public static void requireAllowed(List<Webhook> hooks, Set<String> allowedHosts) {
        for (int i = 0; i < hooks.size(); i++) {
            String host = hooks.get(i).url().getHost().toLowerCase(Locale.ROOT);
            String bare = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
            if (!allowedHosts.contains(host) && !allowedHosts.contains(bare)) {
                throw invalid(
                        "webhooks[" + i + "].url",
                        "names host "
                                + bare
                                + ", which the operator does not allow"
                                + " (agentbox.tools.http.allowed-hosts)");
            }
        }
    }

    public boolean wants(WebhookEvent e) {
        return events.contains(e);
    }

    public JsonObject toJson() {
        JsonArrayBuilder e = Json.createArrayBuilder();
        for (WebhookEvent ev : WebhookEvent.values()) {
            if (events.contains(ev)) {
                e.add(ev.wireName());
            }
        }
        return Json.createObjectBuilder().add("url", url.toString()).add("events", e).build();
    }

    private static ProblemException invalid(String field, String problem) {
        return new ProblemException(
                ProblemCode.INVALID_REQUEST, field + " " + problem, Map.of("field", field), null);
    }
}
