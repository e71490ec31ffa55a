package dev.agentbox.sandbox.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class Utf8StreamDecoderTest {

    @Test
    void aCharacterFedOneByteAtATimeComesOutWhole() {
        Utf8StreamDecoder d = new Utf8StreamDecoder();
        byte[] euro = "€".getBytes(StandardCharsets.UTF_8);
        assertThat(d.feed(euro, 0, 1)).isEmpty();
        assertThat(d.feed(euro, 1, 1)).isEmpty();
        assertThat(d.feed(euro, 2, 1)).isEqualTo("€");
        assertThat(d.finish()).isEmpty();
    }

    @Test
    void aTruncatedTailBecomesAReplacementCharacterAtTheEnd() {
        Utf8StreamDecoder d = new Utf8StreamDecoder();
        assertThat(d.feed(new byte[] {'a', (byte) 0xE2, (byte) 0x82})).isEqualTo("a");
        assertThat(d.finish()).isEqualTo("\uFFFD");
    }

    @Test
    void malformedBytesInTheMiddleAreReplacedNotDropped() {
        Utf8StreamDecoder d = new Utf8StreamDecoder();
        assertThat(d.feed(new byte[] {'x', (byte) 0xFF, 'y'}) + d.finish()).isEqualTo("x\uFFFDy");
    }

    @Test
    void fourByteCharactersSplitAcrossManyPiecesSurvive() {
        Utf8StreamDecoder d = new Utf8StreamDecoder();
        byte[] b = "a😀b€".getBytes(StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder();
        for (byte x : b) {
            out.append(d.feed(new byte[] {x}));
        }
        out.append(d.finish());
        assertThat(out.toString()).isEqualTo("a😀b€");
    }

    @Test
    void aSequenceBrokenOffByTheNextPieceBecomesOneReplacementAndTheNextByteIsKept() {
        Utf8StreamDecoder d = new Utf8StreamDecoder();
        assertThat(d.feed(new byte[] {'a', (byte) 0xE2, (byte) 0x82})).isEqualTo("a");
        assertThat(d.feed(new byte[] {'b'}) + d.finish()).isEqualTo("\uFFFDb");
    }

    @Test
    void malformedBytesAtAPieceBoundaryAreReplacedNotDropped() {
        Utf8StreamDecoder d = new Utf8StreamDecoder();
        assertThat(d.feed(new byte[] {'x', (byte) 0xFF})).isEqualTo("x\uFFFD");
        assertThat(d.feed(new byte[] {(byte) 0x80, 'y'})).isEqualTo("\uFFFDy");
        assertThat(d.finish()).isEmpty();
    }

    @Test
    void aTruncatedFourByteTailAtTheEndIsOneReplacementCharacter() {
        Utf8StreamDecoder d = new Utf8StreamDecoder();
        byte[] emoji = "😀".getBytes(StandardCharsets.UTF_8);
        assertThat(d.feed(emoji, 0, 3)).isEmpty();
        assertThat(d.finish()).isEqualTo("\uFFFD");
    }

    @Test
    void aDecoderCanBeFedAgainAfterFinish() {
        Utf8StreamDecoder d = new Utf8StreamDecoder();
        d.feed(new byte[] {(byte) 0xE2});
        d.finish();
        assertThat(d.feed("€".getBytes(StandardCharsets.UTF_8)) + d.finish()).isEqualTo("€");
    }
}
