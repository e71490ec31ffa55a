package dev.agentbox.it;

import jakarta.json.JsonObject;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Test helper for the run endpoints. */
public final class Runs {

    private final Api api;
    private final String token;

    public Runs(Api api, String token) {
        this.api = api;
        this.token = token;
    }

    public static String path(String runId) {
        return "/api/v1/runs/"
                + URLEncoder.encode(runId, StandardCharsets.UTF_8).replace("+", "%20");
    }

    public HttpResponse<String> startRaw(String body) {
        return api.send(
                api.request("/api/v1/runs", token)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    public JsonObject start(String body) {
        HttpResponse<String> r = startRaw(body);
        if (r.statusCode() != 202) {
            throw new AssertionError("start failed: " + r.statusCode() + " " + r.body());
        }
        return Api.object(r);
    }

    public JsonObject get(String runId) {
        return Api.object(api.get(path(runId), token));
    }

    public HttpResponse<String> cancel(String runId) {
        return api.send(
                api.request(path(runId) + "/cancel", token)
                        .POST(HttpRequest.BodyPublishers.noBody()));
    }

    public SseClient events(String runId, String lastEventId) {
        HttpRequest.Builder b = api.request(path(runId) + "/events", token);
        if (lastEventId != null) {
            b.header("Last-Event-ID", lastEventId);
        }
        return SseClient.open(b);
    }

    /** Reads a whole run transcript (until the stream ends after the terminal chunk). */
    public List<SseClient.Event> transcript(String runId, String lastEventId) {
        try (SseClient sse = events(runId, lastEventId)) {
            return drain(sse, Duration.ofSeconds(90));
        }
    }

    public static List<SseClient.Event> drain(SseClient sse, Duration timeout) {
        List<SseClient.Event> events = new ArrayList<>();
        SseClient.Event e;
        while ((e = sse.next(timeout)) != null) {
            events.add(e);
        }
        return events;
    }

    public static String runBody(String runId, String sandbox, String command, String extra) {
        return "{\"runId\":"
                + jsonString(runId)
                + ",\"threadId\":\"t-runs\",\"sandbox\":"
                + sandbox
                + ",\"harness\":\"command\",\"command\":"
                + jsonString(command)
                + extra
                + "}";
    }

    public static String jsonString(String s) {
        return jakarta.json.Json.createValue(s).toString();
    }
}
