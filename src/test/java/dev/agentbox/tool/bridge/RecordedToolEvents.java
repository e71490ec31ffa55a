package dev.agentbox.tool.bridge;

import dev.agentbox.tool.ToolCallEvents;
import java.util.List;

/** Tool call events as lines: {@code start <tool> <args>}, then {@code end <error> <text>}. */
public record RecordedToolEvents(List<String> lines) implements ToolCallEvents {

    @Override
    public void started(String key, String tool, String args) {
        lines.add("start " + tool + " " + args);
    }

    @Override
    public void finished(String key, String text, boolean error) {
        lines.add("end " + error + " " + text);
    }
}
