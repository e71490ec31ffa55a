package dev.agentbox.platform;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class PageCursorTest {

    private static String wire(String plain) {
        return Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(plain.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aCursorSurvivesItsWireFormToTheNanosecondAndWithAnyId() {
        PageCursor c = new PageCursor(Instant.parse("2026-12-02T10:00:00.123456789Z"), "a/b:c é");
        assertThat(PageCursor.parse(c.encode())).contains(c);
        assertThat(c.encode()).matches("[A-Za-z0-9_-]+");
    }

    @Test
    void anythingThisClassDidNotWriteIsRefused() {
        assertThat(PageCursor.parse(null)).isEmpty();
        assertThat(PageCursor.parse("")).isEmpty();
        assertThat(PageCursor.parse("not base64!")).isEmpty();
        assertThat(PageCursor.parse(wire("123:id"))).isEmpty();
        assertThat(PageCursor.parse(wire("1.2:"))).isEmpty();
        assertThat(PageCursor.parse(wire("x.2:id"))).isEmpty();
        assertThat(PageCursor.parse(wire("1.-5:id"))).isEmpty();
        assertThat(PageCursor.parse(wire("1.1000000000:id"))).isEmpty();
        assertThat(PageCursor.parse(wire("99999999999999999.0:id"))).isEmpty();
        assertThat(PageCursor.parse("A".repeat(4000))).isEmpty();
    }

    @Test
    void belowAndAboveOrderByTimeThenById() {
        Instant t = Instant.parse("2026-12-02T10:00:00Z");
        PageCursor c = new PageCursor(t, "m");
        assertThat(c.below(t.minusNanos(1), "z")).isTrue();
        assertThat(c.below(t, "a")).isTrue();
        assertThat(c.below(t, "m")).isFalse();
        assertThat(c.below(t, "z")).isFalse();
        assertThat(c.above(t, "z")).isTrue();
        assertThat(c.above(t.plusNanos(1), "a")).isTrue();
        assertThat(c.above(t, "m")).isFalse();
    }
}
