package dev.agentbox.agent.store;

import java.time.Instant;

/**
 * A thread of an agent as its turns show it: when its first and newest turns were made, how many
 * there are, and the text of its first turn (what a list of conversations titles it with).
 *
 * @param firstText the user text of the thread's oldest turn, whole
 * @param turns every turn of the thread, continuations included
 */
public record AgentThread(
        String threadId, String firstText, Instant createdAt, Instant updatedAt, long turns) {

    /** The longest title, in code points. */
    public static final int TITLE_MAX = 80;

    /**
     * The first non-blank line of the first text, stripped and cut to {@value #TITLE_MAX} code
     * points; empty when the text is blank.
     */
    public String title() {
        for (String line : firstText.split("\\R")) {
            String s = line.strip();
            if (!s.isEmpty()) {
                return s.codePointCount(0, s.length()) <= TITLE_MAX
                        ? s
                        : s.substring(0, s.offsetByCodePoints(0, TITLE_MAX - 1)) + "…";
            }
        }
        return "";
    }
}
