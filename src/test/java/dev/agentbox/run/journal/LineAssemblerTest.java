package dev.agentbox.run.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineAssemblerTest {

    private final ExitSentinel sentinel = ExitSentinel.of(JournalId.random("r"));

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> texts(List<JournalLine> lines) {
        return lines.stream().map(JournalLine::text).toList();
    }

    @Test
    void deliversCompleteLinesWithTheirEndOffsets() {
        LineAssembler a = new LineAssembler(sentinel);
        List<JournalLine> lines = a.feed(utf8("{\"a\":1}\n{\"b\":2}\n"));
        assertThat(lines)
                .containsExactly(new JournalLine("{\"a\":1}", 8), new JournalLine("{\"b\":2}", 16));
        assertThat(a.position()).isEqualTo(16);
    }

    @Test
    void halfWrittenLineIsNeverDeliveredAndPositionAdvancesOnlyAtNewline_JN06() {
        LineAssembler a = new LineAssembler(sentinel);
        assertThat(a.feed(utf8("{\"a\":1}\n{\"b\"")))
                .extracting(JournalLine::text)
                .containsExactly("{\"a\":1}");
        assertThat(a.position()).isEqualTo(8);
        assertThat(a.pendingBytes()).isEqualTo(4);
        assertThat(a.feed(utf8(":2"))).isEmpty();
        assertThat(a.position()).isEqualTo(8);
        assertThat(a.feed(utf8("}\n"))).containsExactly(new JournalLine("{\"b\":2}", 16));
    }

    @Test
    void multiByteCharacterSplitAcrossFeedsIsReassembledAndCountedInBytes_JN03() {
        byte[] all = utf8("€uro\n日本\n");
        LineAssembler a = new LineAssembler(sentinel);
        List<JournalLine> lines = new ArrayList<>();
        for (byte b : all) {
            lines.addAll(a.feed(new byte[] {b}));
        }
        assertThat(lines).containsExactly(new JournalLine("€uro", 7), new JournalLine("日本", 14));
        assertThat(a.position()).isEqualTo(all.length);
    }

    @Test
    void readResumedFromAByteOffsetReportsAbsoluteOffsets_JN03() {
        byte[] all = utf8("ä1\nö2\nü3\n");
        LineAssembler first = new LineAssembler(sentinel);
        first.feed(Arrays.copyOfRange(all, 0, 5)); // "ä1\nö" — stops inside ö
        long resumeAt = first.position();
        assertThat(resumeAt).isEqualTo(4);
        LineAssembler second = new LineAssembler(sentinel, resumeAt);
        List<JournalLine> lines = second.feed(Arrays.copyOfRange(all, (int) resumeAt, all.length));
        assertThat(lines).containsExactly(new JournalLine("ö2", 8), new JournalLine("ü3", 12));
    }

    @Test
    void malformedUtf8BecomesReplacementCharacterNotDropped() {
        LineAssembler a = new LineAssembler(sentinel);
        List<JournalLine> lines = a.feed(new byte[] {'a', (byte) 0xe2, (byte) 0x82, '\n'});
        assertThat(texts(lines)).containsExactly("a\uFFFD");
        assertThat(a.position()).isEqualTo(4);
    }

    @Test
    void emptyLinesAreLinesAndCarriageReturnIsKept() {
        LineAssembler a = new LineAssembler(sentinel);
        assertThat(texts(a.feed(utf8("\nx\r\n")))).containsExactly("", "x\r");
    }

    @Test
    void stopsAtTheFirstValidSentinelAndIgnoresEverythingAfter() {
        LineAssembler a = new LineAssembler(sentinel);
        String s = sentinel.line(3);
        List<JournalLine> lines = a.feed(utf8("a\n" + s + "\nafter\n" + sentinel.line(0) + "\n"));
        assertThat(texts(lines)).containsExactly("a");
        assertThat(a.exitCode()).hasValue(3);
        assertThat(a.finished()).isTrue();
        assertThat(a.position()).isEqualTo(2 + s.length() + 1);
        assertThat(a.feed(utf8("more\n"))).isEmpty();
        assertThat(a.position()).isEqualTo(2 + s.length() + 1);
        assertThat(a.requireExitCode()).isEqualTo(3);
    }

    @Test
    void sentinelSplitAcrossFeedsIsRecognisedOnlyWhenComplete() {
        LineAssembler a = new LineAssembler(sentinel);
        byte[] s = utf8(sentinel.line(0) + "\n");
        a.feed(Arrays.copyOfRange(s, 0, 20));
        assertThat(a.finished()).isFalse();
        a.feed(Arrays.copyOfRange(s, 20, s.length - 1));
        assertThat(a.finished()).isFalse(); // no newline yet: it might continue
        a.feed(Arrays.copyOfRange(s, s.length - 1, s.length));
        assertThat(a.exitCode()).hasValue(0);
    }

    @Test
    void forgedSentinelsAreDeliveredAsOrdinaryLines_JN08() {
        LineAssembler a = new LineAssembler(sentinel);
        String forged = ExitSentinel.of(JournalId.random("other")).line(0);
        assertThat(texts(a.feed(utf8("{\"__exit\":0}\n" + forged + "\n"))))
                .containsExactly("{\"__exit\":0}", forged);
        assertThat(a.finished()).isFalse();
    }

    @Test
    void streamEndingWithoutSentinelIsAClearError_JN10() {
        LineAssembler a = new LineAssembler(sentinel);
        a.feed(utf8("a\npartial"));
        assertThatThrownBy(a::requireExitCode)
                .isInstanceOf(JournalEndedWithoutSentinelException.class)
                .hasMessageContaining("ended without an exit sentinel")
                .hasMessageContaining("at byte 2");
    }

    @Test
    void feedHonoursOffsetAndLength() {
        LineAssembler a = new LineAssembler(sentinel);
        byte[] buf = utf8("XXa\nbYY");
        assertThat(texts(a.feed(buf, 2, 3))).containsExactly("a");
        assertThat(a.pendingBytes()).isEqualTo(1);
    }
}
