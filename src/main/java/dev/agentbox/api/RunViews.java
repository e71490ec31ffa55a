package dev.agentbox.api;

import dev.agentbox.interrupt.store.Interrupt;
import dev.agentbox.run.store.LoggedChunk;
import dev.agentbox.run.store.RunRecordView;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.util.List;

/**
 * JSON of runs as docs/api.md shows them: fields that are not set are absent; {@code false} is not
 * absent.
 */
final class RunViews {

    private RunViews() {}

    static JsonObject record(RunRecordView r) {
        JsonObjectBuilder b =
                Json.createObjectBuilder()
                        .add("runId", r.runId())
                        .add("threadId", r.threadId())
                        .add("status", r.status().wireName())
                        .add("startedAt", r.startedAt().toString())
                        .add("harness", r.harness().wireName());
        r.finishedAt().ifPresent(t -> b.add("finishedAt", t.toString()));
        r.error()
                .ifPresent(
                        e -> {
                            JsonObjectBuilder err =
                                    Json.createObjectBuilder().add("message", e.message());
                            e.code().ifPresent(c -> err.add("code", c));
                            b.add("error", err);
                        });
        r.usage().ifPresent(u -> b.add("usage", u));
        r.sandboxKey().ifPresent(k -> b.add("sandboxKey", k));
        r.detachedSince().ifPresent(t -> b.add("detachedSince", t.toString()));
        r.cancelRequested().ifPresent(c -> b.add("cancelRequested", c));
        if (r.driverEpoch().isPresent()) {
            b.add("driverEpoch", r.driverEpoch().getAsLong());
        }
        return b.build();
    }

    /**
     * The record with its pending interrupts as {@code interrupts:[{"id","reason","toolCallId?",
     * "tool","arguments","expiresAt"}]} (absent when none is pending).
     */
    static JsonObject record(RunRecordView r, List<Interrupt> pending) {
        if (pending.isEmpty()) {
            return record(r);
        }
        JsonArrayBuilder a = Json.createArrayBuilder();
        pending.forEach(i -> a.add(i.toJson()));
        return Json.createObjectBuilder(record(r)).add("interrupts", a).build();
    }

    static JsonObject accepted(RunRecordView r) {
        return Json.createObjectBuilder()
                .add("runId", r.runId())
                .add("threadId", r.threadId())
                .add("status", r.status().wireName())
                .add("events", "/api/v1/runs/" + pathSegment(r.runId()) + "/events")
                .build();
    }

    /** A run id as one percent-encoded path segment (ids may hold '/', ';', spaces…). */
    static String pathSegment(String runId) {
        return java.net.URLEncoder.encode(runId, java.nio.charset.StandardCharsets.UTF_8)
                .replace("+", "%20");
    }

    static String log(List<LoggedChunk> chunks) {
        JsonArrayBuilder a = Json.createArrayBuilder();
        for (LoggedChunk c : chunks) {
            a.add(
                    Json.createObjectBuilder()
                            .add("offset", Long.toString(c.seq()))
                            .add("chunk", c.chunk()));
        }
        return a.build().toString();
    }
}
