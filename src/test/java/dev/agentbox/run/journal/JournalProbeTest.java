package dev.agentbox.run.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class JournalProbeTest {

    private final ExitSentinel sentinel = ExitSentinel.of(JournalId.random("run-9"));

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] lastWindow(byte[] file) {
        return Arrays.copyOfRange(
                file, Math.max(0, file.length - JournalProbe.WINDOW_BYTES), file.length);
    }

    @Test
    void completeSentinelLineMeansFinished() {
        byte[] file = utf8("{\"a\":1}\n" + sentinel.line(7) + "\n");
        assertThat(JournalProbe.probe(file, sentinel)).isEqualTo(new JournalProbe.Finished(7));
    }

    @Test
    void noSentinelMeansProducing() {
        assertThat(JournalProbe.probe(utf8("{\"a\":1}\n"), sentinel))
                .isEqualTo(new JournalProbe.Producing());
        assertThat(JournalProbe.probe(new byte[0], sentinel))
                .isEqualTo(new JournalProbe.Producing());
    }

    @Test
    void sentinelWithoutItsNewlineIsNotYetFinished() {
        assertThat(JournalProbe.probe(utf8("x\n" + sentinel.line(0)), sentinel))
                .isInstanceOf(JournalProbe.Producing.class);
    }

    @Test
    void forgedSentinelsMeanProducing_JN08() {
        byte[] file =
                utf8(
                        "{\"__exit\":0}\n"
                                + ExitSentinel.of(JournalId.random("other")).line(0)
                                + "\n"
                                + ExitSentinel.of(JournalId.derived("run-9")).line(0)
                                + "\n{\"__exit\":\"0\",\"__nonce\":\""
                                + sentinel.nonce()
                                + "\"}\n");
        assertThat(JournalProbe.probe(file, sentinel)).isInstanceOf(JournalProbe.Producing.class);
    }

    @Test
    void sentinelAfterALongJournalIsFoundInTheLastWindow() {
        String filler = ("{\"delta\":\"" + "x".repeat(90) + "\"}\n").repeat(200);
        byte[] file = utf8(filler + sentinel.line(0) + "\n");
        assertThat(file.length).isGreaterThan(JournalProbe.WINDOW_BYTES);
        assertThat(JournalProbe.probe(lastWindow(file), sentinel))
                .isEqualTo(new JournalProbe.Finished(0));
    }

    @Test
    void truncatedFirstLineOfTheWindowIsIgnored() {
        // A long line that ends with sentinel text: the window cuts into it, leaving exactly the
        // sentinel-looking tail as the window's first "line". It is a fragment, not a sentinel.
        String longLine = "y".repeat(5000) + sentinel.line(0);
        byte[] file = utf8(longLine + "\n" + "z\n");
        byte[] window = lastWindow(file);
        assertThat(new String(window, StandardCharsets.UTF_8)).startsWith("y");
        byte[] cut =
                Arrays.copyOfRange(
                        file, file.length - (sentinel.line(0).length() + 3), file.length);
        assertThat(JournalProbe.probe(cut, false, sentinel))
                .isInstanceOf(JournalProbe.Producing.class);
        assertThat(JournalProbe.probe(window, sentinel)).isInstanceOf(JournalProbe.Producing.class);
    }

    @Test
    void wholeFileWindowTrustsItsFirstLine() {
        byte[] file = utf8(sentinel.line(2) + "\n");
        assertThat(JournalProbe.probe(file, true, sentinel))
                .isEqualTo(new JournalProbe.Finished(2));
        assertThat(JournalProbe.probe(file, false, sentinel))
                .isInstanceOf(JournalProbe.Producing.class);
    }
}
