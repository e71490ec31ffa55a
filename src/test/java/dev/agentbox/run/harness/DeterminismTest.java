package dev.agentbox.run.harness;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Translating the same journal twice gives the same chunks except {@code timestamp}. */
class DeterminismTest {

    @ParameterizedTest
    @CsvSource({
        "COMMAND, command-mixed.ndjson, 0",
        "COMMAND, command-mixed.ndjson, 7",
        "CLAUDE_CODE, claude-code-synthetic.ndjson, 0",
        "CLAUDE_CODE, claude-code-tool.ndjson, 0",
        "CLAUDE_CODE, claude-code-permission-denied.ndjson, 0",
        "CLAUDE_CODE, claude-code-error.ndjson, 1",
        "CLAUDE_CODE, claude-code-max-turns.ndjson, 1",
        "CODEX, codex-synthetic.jsonl, 0",
        "CODEX, codex-tool.jsonl, 0",
        "CODEX, codex-retry.jsonl, 0",
        "CODEX, codex-failed.jsonl, 1",
    })
    void sameJournalTranslatesToTheSameChunksExceptTimestamp(
            Harness harness, String fixture, int exitCode) {
        byte[] journal = Transcripts.journal(fixture, exitCode);
        AtomicLong firstClock = new AtomicLong(1_700_000_000_000L);
        AtomicLong secondClock = new AtomicLong(1_800_000_000_000L);
        // Different read piece sizes too: how the bytes arrive must not matter.
        List<JsonObject> first =
                Transcripts.translateJournal(
                        harness, journal, 1, "boom\n", firstClock::incrementAndGet);
        List<JsonObject> second =
                Transcripts.translateJournal(
                        harness, journal, 4096, "boom\n", secondClock::incrementAndGet);

        assertThat(second).hasSameSizeAs(first);
        assertThat(second.stream().map(Chunks::withoutTimestamp).toList())
                .isEqualTo(first.stream().map(Chunks::withoutTimestamp).toList());
        assertThat(second.stream().map(Chunks::fingerprint).toList())
                .isEqualTo(first.stream().map(Chunks::fingerprint).toList());
        for (int i = 0; i < first.size(); i++) {
            assertThat(second.get(i).getJsonNumber("timestamp").longValue())
                    .isNotEqualTo(first.get(i).getJsonNumber("timestamp").longValue());
        }
        assertThat(Chunks.isTerminal(first.get(first.size() - 1))).isTrue();
        assertThat(first.stream().filter(Chunks::isTerminal)).hasSize(1);
    }
}
