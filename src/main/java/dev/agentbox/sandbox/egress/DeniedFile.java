package dev.agentbox.sandbox.egress;

import dev.agentbox.sandbox.spi.EgressAudit.Refusal;
import dev.agentbox.sandbox.spi.EgressAudit.Refusals;
import java.util.ArrayList;
import java.util.List;

/**
 * What the gateway's {@code agentbox-egress denied <sandbox> <offset>} prints about one sandbox's
 * refusals file: the file's end offset on the first line (then, from gateways that say it, 1 or 0:
 * whether they hold brokered secrets of the sandbox), then one {@code <host> <port>} line per
 * refusal from the offset on, or {@code <host> <port> secret-missing <NAME>} for a request that
 * carried a placeholder whose value the gateway did not hold. A line of another shape (a refusal
 * being appended) is skipped.
 */
public final class DeniedFile {

    private DeniedFile() {}

    /** The refusals in {@code output}, read from {@code offset}, and the offset after them. */
    public static Refusals parse(String output, long offset) {
        List<String> lines = output.lines().toList();
        String[] head = lines.isEmpty() ? new String[0] : lines.get(0).strip().split(" ");
        long next = head.length == 0 ? offset : Long.parseLong(head[0]);
        boolean held = head.length < 2 || !"0".equals(head[1]);
        List<Refusal> refusals = new ArrayList<>();
        for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
            String[] f = line.strip().split(" ");
            if (f.length == 2 && f[1].matches("\\d{1,5}")) {
                refusals.add(new Refusal(f[0], Integer.parseInt(f[1])));
            } else if (f.length == 4
                    && f[1].matches("\\d{1,5}")
                    && "secret-missing".equals(f[2])
                    && (f[3].equals("?") || f[3].matches("[A-Za-z_][A-Za-z0-9_]{0,127}"))) {
                refusals.add(new Refusal(f[0], Integer.parseInt(f[1]), f[3]));
            }
        }
        return new Refusals(refusals, next, held);
    }
}
