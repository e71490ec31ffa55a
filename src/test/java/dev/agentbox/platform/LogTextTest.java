package dev.agentbox.platform;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LogTextTest {

    @Test
    void crAndLfCannotStartAForgedLogLine() {
        String forged =
                "run-1\r\n2026-01-01 INFO [agentbox] admin: reaper sweep requested by tenant \"ops\"";
        String quoted = LogText.quote(forged);
        assertThat(quoted)
                .doesNotContain("\r")
                .doesNotContain("\n")
                .startsWith("\"run-1\\r\\n2026-01-01 INFO")
                .endsWith("by tenant \\\"ops\\\"\"");
    }

    @Test
    void everyControlCharacterLineSeparatorAndBidiOverrideIsEscaped() {
        String quoted = LogText.quote("a\u0000b\u001bc\u007fd\u0085e\u2028f\u2029g\u202eh\ti");
        assertThat(quoted)
                .isEqualTo("\"a\\u0000b\\u001bc\\u007fd\\u0085e\\u2028f\\u2029g\\u202eh\\ti\"");
        assertThat(quoted.chars()).allMatch(c -> c >= 0x20 && c < 0x7f);
    }

    @Test
    void quotesAndBackslashesCannotCloseTheValue() {
        assertThat(LogText.quote("x\" tenant=\"ops")).isEqualTo("\"x\\\" tenant=\\\"ops\"");
        assertThat(LogText.quote("a\\b")).isEqualTo("\"a\\\\b\"");
    }

    @Test
    void longValuesAreCutAndTheRestCounted() {
        String quoted = LogText.quote("x".repeat(1_000_000));
        assertThat(quoted)
                .hasSize(LogText.MAX_CHARS + 2 + "...(999800 more chars)".length())
                .endsWith("\"...(999800 more chars)");
    }

    @Test
    void aCutNeverSplitsASurrogatePair() {
        String value = "x".repeat(LogText.MAX_CHARS - 1) + "\uD83D\uDE00" + "tail";
        String quoted = LogText.quote(value);
        assertThat(quoted).startsWith("\"" + "x".repeat(LogText.MAX_CHARS - 1) + "\"...(");
    }

    @Test
    void ordinaryValuesAreKeptAsTheyAreAndNullStaysNull() {
        assertThat(LogText.quote("tenant-a/run:42 ünïcode"))
                .isEqualTo("\"tenant-a/run:42 ünïcode\"");
        assertThat(LogText.quote((String) null)).isEqualTo("null");
        assertThat(LogText.quote((Object) null)).isEqualTo("null");
        assertThat(LogText.quote(42)).isEqualTo("\"42\"");
    }
}
