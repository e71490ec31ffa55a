package dev.agentbox.agent.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class AgentThreadTest {

    private static String title(String firstText) {
        return new AgentThread("t", firstText, Instant.EPOCH, Instant.EPOCH, 1).title();
    }

    @Test
    void aThreadIsTitledByTheFirstNonBlankLineOfItsFirstPrompt_AG24() {
        assertThat(title("fix the build\nthen run the tests")).isEqualTo("fix the build");
        assertThat(title("\n   \r\n  refactor the parser  \nmore"))
                .isEqualTo("refactor the parser");
        assertThat(title(" \n\t")).isEmpty();
    }

    @Test
    void aLongTitleIsCutToEightyCodePointsWithoutSplittingOne() {
        String emoji = "\uD83D\uDE00"; // one code point, two chars
        String t = title(emoji.repeat(100));
        assertThat(t.codePointCount(0, t.length())).isEqualTo(AgentThread.TITLE_MAX);
        assertThat(t).endsWith("…").startsWith(emoji.repeat(79));
        assertThat(title("x".repeat(80))).isEqualTo("x".repeat(80));
    }
}
