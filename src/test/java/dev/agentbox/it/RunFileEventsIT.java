package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.run.harness.Chunks;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.harness.HarnessTranslator;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * RN-03: a run started with {@code fileEvents: true} has {@code CUSTOM file.changed} chunks in its
 * log for what its agent does in the workspace, between its own chunks and before the terminal one;
 * a run without the flag has none.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunFileEventsIT {

    private static final List<String> LINES =
            List.of("{\"delta\":\"a\"}", "{\"delta\":\"b\"}", "{\"delta\":\"c\"}", "step");

    private final Api api = Api.itServer();
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);
    private final Runs runs = new Runs(api, Api.TENANT_A);
    private String key;

    @BeforeAll
    void sandbox() {
        key =
                sandboxes
                        .ensure("{\"definitionId\":\"file-events-" + UUID.randomUUID() + "\"}")
                        .getString("key");
    }

    @AfterAll
    void cleanUp() {
        sandboxes.close();
    }

    private String keyRef() {
        return "{\"key\":\"" + key + "\"}";
    }

    /**
     * Creates, appends to and deletes {@code file}, printing a line and pausing (past the
     * coalescing window) between the steps; the first pause lets the watcher start.
     */
    private static String agent(String file) {
        return "sleep 1.5; printf '%s\\n' '"
                + LINES.get(0)
                + "'; touch "
                + file
                + "; sleep 1; printf '%s\\n' '"
                + LINES.get(1)
                + "'; echo two >> "
                + file
                + "; sleep 1; printf '%s\\n' '"
                + LINES.get(2)
                + "'; rm "
                + file
                + "; sleep 1; printf '%s\\n' '"
                + LINES.get(3)
                + "'";
    }

    /** The journal's chunks, by fingerprint: what the log holds besides file events. */
    private static List<String> journalFingerprints(String runId) {
        HarnessTranslator t = Harness.COMMAND.translator(runId, "t-runs", () -> 0L);
        List<JsonObject> chunks = new ArrayList<>();
        chunks.addAll(t.onStart());
        chunks.add(
                new ChunkFactory(runId, "t-runs", () -> 0L)
                        .custom("run.accepted", jakarta.json.JsonValue.EMPTY_JSON_OBJECT));
        LINES.forEach(l -> chunks.addAll(t.onLine(l)));
        chunks.addAll(t.onExit(0, ""));
        return chunks.stream().map(Chunks::fingerprint).toList();
    }

    private static boolean isFileChanged(JsonObject chunk) {
        return "CUSTOM".equals(chunk.getString("type"))
                && "file.changed".equals(chunk.getString("name", ""));
    }

    @Test
    void aRunWithFileEventsLogsEachCreateChangeAndDeleteOfItsAgentBeforeItsEnd() {
        String runId = "fe-" + UUID.randomUUID();
        String file = "/workspace/" + runId + ".txt";
        runs.start(Runs.runBody(runId, keyRef(), agent(file), ",\"fileEvents\":true"));

        List<JsonObject> chunks =
                runs.transcript(runId, null).stream().map(e -> Api.parse(e.data())).toList();

        assertThat(chunks.get(chunks.size() - 1).getString("type")).isEqualTo("RUN_FINISHED");
        List<JsonObject> fileEvents = chunks.stream().filter(c -> isFileChanged(c)).toList();
        assertThat(
                        fileEvents.stream()
                                .map(c -> c.getJsonObject("value"))
                                .filter(v -> v.getString("path").equals(file))
                                .map(v -> v.getString("kind"))
                                .toList())
                .containsExactly("create", "change", "delete");
        assertThat(fileEvents)
                .allSatisfy(
                        c -> {
                            assertThat(c.getString("runId")).isEqualTo(runId);
                            assertThat(c.getJsonObject("value").getString("path"))
                                    .startsWith("/workspace/");
                        });
        // Each change lands after the line printed before it and before the next one.
        List<String> order =
                chunks.stream()
                        .map(
                                c ->
                                        isFileChanged(c)
                                                ? c.getJsonObject("value").getString("kind")
                                                : c.getString("type")
                                                        + c.getString("delta", "")
                                                        + c.getString("value", ""))
                        .filter(
                                s ->
                                        List.of(
                                                        "TEXT_MESSAGE_CONTENTa",
                                                        "TEXT_MESSAGE_CONTENTb",
                                                        "TEXT_MESSAGE_CONTENTc",
                                                        "CUSTOMstep",
                                                        "create",
                                                        "change",
                                                        "delete")
                                                .contains(s))
                        .toList();
        assertThat(order)
                .containsExactly(
                        "TEXT_MESSAGE_CONTENTa",
                        "create",
                        "TEXT_MESSAGE_CONTENTb",
                        "change",
                        "TEXT_MESSAGE_CONTENTc",
                        "delete",
                        "CUSTOMstep");
        assertThat(chunks.stream().filter(c -> !isFileChanged(c)).map(Chunks::fingerprint).toList())
                .as("the journal's chunks are all there, once, in order")
                .containsExactlyElementsOf(journalFingerprints(runId));
        assertThat(runs.get(runId).getString("status")).isEqualTo("completed");
    }

    @Test
    void aRunWithoutFileEventsHasNoFileChangedChunks() {
        String runId = "fe-off-" + UUID.randomUUID();
        runs.start(Runs.runBody(runId, keyRef(), agent("/workspace/" + runId + ".txt"), ""));

        List<JsonObject> chunks =
                runs.transcript(runId, null).stream().map(e -> Api.parse(e.data())).toList();

        assertThat(chunks.get(chunks.size() - 1).getString("type")).isEqualTo("RUN_FINISHED");
        assertThat(chunks).noneMatch(RunFileEventsIT::isFileChanged);
        assertThat(chunks.stream().map(Chunks::fingerprint).toList())
                .containsExactlyElementsOf(journalFingerprints(runId));
    }

    @Test
    void fileEventsMustBeABoolean() {
        assertProblem(
                runs.startRaw(
                        Runs.runBody(
                                "fe-bad-" + UUID.randomUUID(),
                                keyRef(),
                                "true",
                                ",\"fileEvents\":\"yes\"")),
                400,
                "invalid-request");
    }
}
