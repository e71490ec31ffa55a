package dev.agentbox.sandbox.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.sandbox.support.BoundedCapture;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The pure memory bounds of command output: exec capture and background-process retention. */
class BoundedOutputTest {

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void captureKeepsBothStreamsApartAndStopsAtTheCapTogether() {
        BoundedCapture c = new BoundedCapture(10);
        assertThat(c.append(false, bytes("abcdef"), 0, 6)).isTrue();
        assertThat(c.append(true, bytes("1234"), 0, 4))
                .as("exactly at the cap is not over it")
                .isTrue();
        assertThat(c.overflowed()).isFalse();
        assertThat(c.append(false, bytes("X"), 0, 1)).isFalse();
        assertThat(c.overflowed()).isTrue();
        assertThat(new String(c.stdout(), StandardCharsets.UTF_8)).isEqualTo("abcdef");
        assertThat(new String(c.stderr(), StandardCharsets.UTF_8)).isEqualTo("1234");
    }

    @Test
    void aFloodIntoTheCaptureHoldsNoMoreThanTheCap() {
        BoundedCapture c = new BoundedCapture(1000);
        byte[] mb = new byte[1 << 20];
        for (int i = 0; i < 64; i++) {
            c.append(i % 2 == 0, mb, 0, mb.length);
        }
        assertThat(c.size()).isEqualTo(1000);
        assertThat(c.stdout().length + c.stderr().length).isEqualTo(1000);
        assertThat(c.overflowed()).isTrue();
    }

    @Test
    void aPartialWriteKeepsWhatFitsAndReportsTheOverflow() {
        BoundedCapture c = new BoundedCapture(4);
        assertThat(c.append(false, bytes("abcdef"), 1, 5)).isFalse();
        assertThat(new String(c.stdout(), StandardCharsets.UTF_8)).isEqualTo("bcde");
    }

    @Test
    void processOutputRetainsOnlyTheNewestCharactersForLateSubscribers() {
        ProcessOutput out = new ProcessOutput(100);
        for (int i = 0; i < 50; i++) {
            byte[] line = bytes(String.format("line %03d\n", i));
            out.bytes(OutputChunk.Stream.STDOUT, line, 0, line.length);
        }
        assertThat(out.retainedChars()).isLessThanOrEqualTo(100);
        StringBuilder seen = new StringBuilder();
        out.subscribe(
                new SandboxProcess.OutputListener() {
                    @Override
                    public void onOutput(OutputChunk chunk) {
                        seen.append(chunk.text());
                    }

                    @Override
                    public void onExit(int exitCode) {}
                });
        assertThat(seen.toString()).endsWith("line 049\n").doesNotContain("line 000");
    }

    @Test
    void oneChunkLargerThanTheBoundKeepsOnlyItsTail() {
        ProcessOutput out = new ProcessOutput(10);
        byte[] big = bytes("0123456789abcdefghij");
        out.bytes(OutputChunk.Stream.STDERR, big, 0, big.length);
        assertThat(out.retainedChars()).isEqualTo(10);
        StringBuilder seen = new StringBuilder();
        out.subscribe(
                new SandboxProcess.OutputListener() {
                    @Override
                    public void onOutput(OutputChunk chunk) {
                        seen.append(chunk.text());
                    }

                    @Override
                    public void onExit(int exitCode) {}
                });
        assertThat(seen.toString()).isEqualTo("abcdefghij");
    }
}
