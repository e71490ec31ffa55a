package dev.agentbox.run.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class LineAssemblerCapTest {

    private final ExitSentinel sentinel = ExitSentinel.of(JournalId.random("r"));

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    @DisplayName(
            "a line over the cap keeps only its first bytes, cut at a character boundary; the offset stays exact")
    void overlongLineIsTruncatedAtACharacterBoundary() {
        LineAssembler a = new LineAssembler(sentinel, 0, 5);
        // "ab€" is 5 bytes, "ab€€" 8: the cap (5) falls inside the second €, which is dropped whole
        assertThat(a.feed(utf8("ab€"))).isEmpty();
        assertThat(a.feed(utf8("€xyz"))).isEmpty();
        assertThat(a.pendingBytes()).isEqualTo(11);
        assertThat(a.feed(utf8("\nok\n")))
                .containsExactly(new JournalLine("ab€", 12, true), new JournalLine("ok", 15));
        assertThat(a.position()).isEqualTo(15);
        assertThat(a.truncatedLines()).isEqualTo(1);
    }

    @Test
    @DisplayName("a cut inside a 4-byte character drops the partial character")
    void cutInsideAFourByteCharacter() {
        LineAssembler a = new LineAssembler(sentinel, 10, 3);
        assertThat(a.feed(utf8("a😀b\n"))).containsExactly(new JournalLine("a", 17, true));
    }

    @Test
    @DisplayName(
            "a line exactly at the cap is whole, and the sentinel after a truncated line still ends the journal")
    void lineAtTheCapIsWholeAndSentinelStillCounts() {
        String s = sentinel.line(4);
        LineAssembler a = new LineAssembler(sentinel, 0, s.length());
        assertThat(
                        a.feed(
                                utf8(
                                        "x".repeat(s.length())
                                                + "\n"
                                                + "y".repeat(s.length() + 1)
                                                + "\n"
                                                + s
                                                + "\nlater\n")))
                .extracting(JournalLine::truncated)
                .containsExactly(false, true);
        assertThat(a.exitCode()).hasValue(4);
    }

    @Test
    @DisplayName("a cut inside a 2-byte or 3-byte character drops only that character")
    void cutInsideShorterCharacters() {
        LineAssembler a = new LineAssembler(sentinel, 0, 2);
        assertThat(a.feed(utf8("aé\n"))).containsExactly(new JournalLine("a", 4, true));
        LineAssembler b = new LineAssembler(sentinel, 0, 3);
        assertThat(b.feed(utf8("a€\n"))).containsExactly(new JournalLine("a", 5, true));
    }

    @Test
    @DisplayName(
            "malformed bytes before the cut become U+FFFD; they are not taken for a cut character")
    void malformedBytesAtTheCutAreReplacedNotDropped() {
        LineAssembler a = new LineAssembler(sentinel, 0, 3);
        // 0xFF is never UTF-8, and 0xC0 never starts a valid sequence: neither is a character the
        // cap cut
        assertThat(a.feed(new byte[] {'a', (byte) 0xFF, (byte) 0xC0, 'z', '\n'}))
                .containsExactly(new JournalLine("a\uFFFD\uFFFD", 5, true));
    }
}
