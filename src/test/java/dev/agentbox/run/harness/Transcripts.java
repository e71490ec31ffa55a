package dev.agentbox.run.harness;

import dev.agentbox.platform.CanonicalJson;
import dev.agentbox.run.journal.ExitSentinel;
import dev.agentbox.run.journal.JournalId;
import dev.agentbox.run.journal.JournalLine;
import dev.agentbox.run.journal.LineAssembler;
import dev.agentbox.testing.AgUiAssert;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Test helpers: run a fixture through the pure journal pipeline and summarise chunks. Every whole
 * translation they make is checked to be a valid AG-UI log ({@link AgUiAssert}).
 */
final class Transcripts {

    static final String RUN = "r";
    static final String THREAD = "t";
    static final JournalId JOURNAL = JournalId.random(RUN);

    private Transcripts() {}

    static byte[] resource(String name) {
        try (InputStream in = Transcripts.class.getResourceAsStream("/harness/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no fixture " + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The journal a run of the fixture would leave: its lines, then the sentinel. */
    static byte[] journal(String fixture, int exitCode) {
        String text = new String(resource(fixture), StandardCharsets.UTF_8);
        return (text + ExitSentinel.of(JOURNAL).line(exitCode) + "\n")
                .getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Reads {@code journal} in {@code pieceSize}-byte pieces as a reader would, translating every
     * complete line, then the exit: the whole chunk sequence of the run.
     */
    static List<JsonObject> translateJournal(
            Harness harness,
            byte[] journal,
            int pieceSize,
            String stderr,
            LongSupplier timestamps) {
        HarnessTranslator translator = harness.translator(RUN, THREAD, timestamps);
        LineAssembler lines = new LineAssembler(ExitSentinel.of(JOURNAL));
        List<JsonObject> chunks = new ArrayList<>(translator.onStart());
        for (int from = 0; from < journal.length; from += pieceSize) {
            byte[] piece =
                    Arrays.copyOfRange(journal, from, Math.min(journal.length, from + pieceSize));
            for (JournalLine line : lines.feed(piece)) {
                chunks.addAll(translator.onLine(line.text()));
            }
        }
        chunks.addAll(translator.onExit(lines.requireExitCode(), stderr));
        AgUiAssert.assertValidAgUiLog(chunks);
        return chunks;
    }

    static List<JsonObject> translateLines(
            HarnessTranslator translator, List<String> lines, int exitCode, String stderr) {
        List<JsonObject> chunks = new ArrayList<>(translator.onStart());
        for (String line : lines) {
            chunks.addAll(translator.onLine(line));
        }
        chunks.addAll(translator.onExit(exitCode, stderr));
        AgUiAssert.assertValidAgUiLog(chunks);
        return chunks;
    }

    private static final List<String> SUMMARY_FIELDS =
            List.of(
                    "messageId",
                    "toolCallId",
                    "toolCallName",
                    "stepName",
                    "role",
                    "delta",
                    "content",
                    "name",
                    "value",
                    "result",
                    "message",
                    "code");

    /** {@code TYPE field=value …} for the fields that identify a chunk in a readable way. */
    static String summary(JsonObject chunk) {
        StringBuilder b = new StringBuilder(chunk.getString("type"));
        for (String field : SUMMARY_FIELDS) {
            if (chunk.containsKey(field)) {
                b.append(' ').append(field).append('=');
                b.append(
                        chunk.get(field) instanceof jakarta.json.JsonString s
                                ? s.getString()
                                : CanonicalJson.of(chunk.get(field)));
            }
        }
        return b.toString();
    }

    static List<String> summaries(List<JsonObject> chunks) {
        return chunks.stream().map(Transcripts::summary).toList();
    }
}
