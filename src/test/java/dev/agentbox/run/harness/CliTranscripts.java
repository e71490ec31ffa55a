package dev.agentbox.run.harness;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * What the real-CLI tests share: translating a run's output with the harness's translator (a valid
 * AG-UI log, checked), holding every printed line to the translator's list of what it maps, and
 * keeping the transcript as a fixture when {@code -Dagentbox.harness.record=<dir>} asks for it.
 */
final class CliTranscripts {

    private CliTranscripts() {}

    /** The run's chunks: RUN_STARTED, every line, then the exit. */
    static List<JsonObject> translate(Harness harness, AgentCliContainer.Output output) {
        AtomicLong clock = new AtomicLong();
        return Transcripts.translateLines(
                harness.translator(Transcripts.RUN, Transcripts.THREAD, clock::incrementAndGet),
                output.lines(),
                output.exitCode(),
                output.stderr());
    }

    /**
     * Every line is one JSON object of a kind the translator maps, and no chunk is the generic
     * fallback for output a translator did not understand.
     *
     * @return the kinds printed, in order
     */
    static List<String> assertEveryLineUnderstood(
            AgentCliContainer.Output output,
            Function<JsonObject, String> kind,
            java.util.Set<String> handled,
            List<JsonObject> chunks) {
        List<String> kinds =
                output.lines().stream()
                        .map(
                                line -> {
                                    Optional<JsonObject> o = TranslatorBase.parseObject(line);
                                    assertThat(o).as("a JSON object line: %s", line).isPresent();
                                    return kind.apply(o.get());
                                })
                        .toList();
        assertThat(kinds)
                .as("what the CLI printed, against what the translator maps")
                .isSubsetOf(handled);
        assertThat(chunks)
                .noneMatch(
                        c ->
                                c.getString("type").equals("CUSTOM")
                                        && (c.getString("name").equals(CommandTranslator.AGENT_TEXT)
                                                || c.getString("name")
                                                        .equals(CommandTranslator.AGENT_OUTPUT)));
        return kinds;
    }

    /** Writes the run's stdout to {@code <dir>/<fixture>} when recording. */
    static void record(String fixture, AgentCliContainer.Output output) {
        String dir = System.getProperty("agentbox.harness.record", "");
        if (dir.isEmpty()) {
            return;
        }
        try {
            Path d = Files.createDirectories(Path.of(dir));
            Files.writeString(
                    d.resolve(fixture),
                    String.join("\n", output.lines()) + "\n",
                    StandardCharsets.UTF_8);
            Files.writeString(
                    d.resolve(fixture + ".exit"),
                    output.exitCode() + "\n" + output.stderr(),
                    StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
