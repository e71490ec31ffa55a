package dev.agentbox.sandbox.egress;

import dev.agentbox.sandbox.spi.EgressAudit.Refusal;
import dev.agentbox.sandbox.spi.EgressAudit.Refusals;
import java.util.ArrayList;
import java.util.List;

/**
 * What the gateway's {@code agentbox-egress denied <sandbox> <offset>} prints about one sandbox's
 * refusals file: the file's end offset on the first line, then one {@code <host> <port>} line per
 * refusal from the offset on. A line of another shape (a refusal being appended) is skipped.
 */
public final class DeniedFile {

    private DeniedFile() {}

    /** The refusals in {@code output}, read from {@code offset}, and the offset after them. */
    public static Refusals parse(String output, long offset) {
        List<String> lines = output.lines().toList();
        long next = lines.isEmpty() ? offset : Long.parseLong(lines.get(0).strip());
        List<Refusal> refusals = new ArrayList<>();
        for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
            String[] f = line.strip().split(" ");
            if (f.length == 2 && f[1].matches("\\d{1,5}")) {
                refusals.add(new Refusal(f[0], Integer.parseInt(f[1])));
            }
        }
        return new Refusals(refusals, next);
    }
}
