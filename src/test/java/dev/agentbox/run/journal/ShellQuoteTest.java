package dev.agentbox.run.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.platform.ShellQuote;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShellQuoteTest {

    @TempDir Path dir;

    @Test
    void wrapsInSingleQuotes() {
        assertThat(ShellQuote.single("abc")).isEqualTo("'abc'");
        assertThat(ShellQuote.single("")).isEqualTo("''");
    }

    @Test
    void singleQuoteIsClosedEscapedAndReopened() {
        assertThat(ShellQuote.single("it's")).isEqualTo("'it'\\''s'");
    }

    @Test
    void nulIsRejected() {
        assertThatThrownBy(() -> ShellQuote.single("a\0b"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void realShellsSeeExactlyTheOriginalWord() throws Exception {
        List<String> nasty =
                List.of(
                        "",
                        "'",
                        "''",
                        "a'b\"c",
                        "$(touch canary)",
                        "`touch canary`",
                        "$HOME ${x:-y}",
                        "line1\nline2\n",
                        "\\n \\ \\\\",
                        "*; rm -rf canary | & > canary < /dev/null",
                        "#comment",
                        "-n",
                        "é€🙂\t");
        for (String shell : Sh.availableShells()) {
            for (String s : nasty) {
                Sh.Result r =
                        Sh.run(dir, List.of(shell, "-c", "printf '%s' " + ShellQuote.single(s)));
                assertThat(r.exitCode()).as(shell).isZero();
                assertThat(r.stdout()).as(shell + " " + s).isEqualTo(s);
            }
        }
        assertThat(dir.resolve("canary")).doesNotExist();
    }
}
