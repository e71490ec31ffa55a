package dev.agentbox.it;

import static dev.agentbox.testing.AgUiAssert.assertValidAgUiLog;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/** What the {@code acp} harness's ITs read from a run: its chunks, its text, its interrupts. */
final class AcpTurns {

    private AcpTurns() {}

    /** The run's whole stream (to its end), checked to be a valid AG-UI log. */
    static List<JsonObject> chunks(Runs runs, String runId) {
        List<JsonObject> chunks =
                runs.transcript(runId, null).stream().map(e -> Api.parse(e.data())).toList();
        assertValidAgUiLog(chunks);
        return chunks;
    }

    /** The {@code TEXT_MESSAGE_CONTENT} deltas, joined. */
    static String text(List<JsonObject> chunks) {
        StringBuilder sb = new StringBuilder();
        chunks.stream()
                .filter(c -> c.getString("type").equals("TEXT_MESSAGE_CONTENT"))
                .forEach(c -> sb.append(c.getString("delta")));
        return sb.toString();
    }

    static List<JsonObject> custom(List<JsonObject> chunks, String name) {
        return chunks.stream()
                .filter(c -> c.getString("type").equals("CUSTOM"))
                .filter(c -> c.getString("name").equals(name))
                .toList();
    }

    static JsonObject last(List<JsonObject> chunks) {
        return chunks.get(chunks.size() - 1);
    }

    /**
     * The run's first listed interrupt, once there is one; fails when the run ends without asking
     * ({@code context} says what to show then) or after {@code timeout}.
     */
    static JsonObject pendingInterrupt(
            Runs runs, String runId, Duration timeout, java.util.function.Supplier<String> context)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            JsonObject run = runs.get(runId);
            if (!List.of("running", "interrupted").contains(run.getString("status"))) {
                throw new AssertionError(
                        "the run ended without asking: " + run + "\n" + context.get());
            }
            if (run.get("interrupts") instanceof JsonArray a && !a.isEmpty()) {
                return a.getJsonObject(0);
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no interrupt listed on " + runId);
    }

    /** Answers an approval interrupt of tenant A's run through {@code api}. */
    static void answer(Api api, String runId, String interruptId, boolean approved) {
        HttpResponse<String> r =
                api.send(
                        api.request(Runs.path(runId) + "/interrupts/" + interruptId, Api.TENANT_A)
                                .header("Content-Type", "application/json")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                "{\"status\":\"resolved\",\"payload\":{\"approved\":"
                                                        + approved
                                                        + "}}")));
        assertThat(r.statusCode()).as(r.body()).isBetween(200, 204);
    }
}
