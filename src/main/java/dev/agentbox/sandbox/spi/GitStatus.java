package dev.agentbox.sandbox.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The status of a repository, read from {@code git status --porcelain=v2 --branch -z} (a format git
 * keeps stable for scripts; paths come unquoted, NUL-terminated).
 *
 * @param branch the current branch; empty on a detached HEAD
 * @param commit the HEAD commit; empty before the first commit
 * @param upstream the branch's upstream, e.g. {@code origin/main}; empty when it has none
 * @param ahead commits on the branch that the upstream lacks (0 without an upstream)
 * @param behind commits on the upstream that the branch lacks (0 without an upstream)
 * @param entries one per changed, untracked or conflicted path (ignored paths are not listed; an
 *     untracked directory is one entry ending in {@code /})
 */
public record GitStatus(
        Optional<String> branch,
        Optional<String> commit,
        Optional<String> upstream,
        int ahead,
        int behind,
        List<Entry> entries) {

    public GitStatus {
        entries = List.copyOf(entries);
    }

    /** Nothing to commit: no changed, staged, untracked or conflicted path. */
    public boolean clean() {
        return entries.isEmpty();
    }

    /**
     * One path.
     *
     * @param path relative to the repository's top
     * @param status {@code modified}, {@code added}, {@code deleted}, {@code renamed}, {@code
     *     copied}, {@code type-changed}, {@code untracked} or {@code conflicted}: the index's
     *     change if there is one, else the work tree's
     * @param code git's two letters, index then work tree, {@code .} for unchanged (e.g. {@code .M}
     *     modified and not staged, {@code M.} staged, {@code AM} added then modified again, {@code
     *     ??} untracked, {@code UU} both modified in a conflict)
     * @param staged whether the index holds a change of the path
     * @param from the path it was renamed or copied from; empty otherwise
     */
    public record Entry(
            String path, String status, String code, boolean staged, Optional<String> from) {}

    /** The command whose output {@link #parse} reads. */
    public static final String COMMAND = "git status --porcelain=v2 --branch -z";

    /**
     * Parses {@link #COMMAND}'s output. Unknown record kinds are skipped, so a newer git that adds
     * one does not break the status.
     */
    public static GitStatus parse(String output) {
        String branch = null;
        String commit = null;
        String upstream = null;
        int ahead = 0;
        int behind = 0;
        List<Entry> entries = new ArrayList<>();
        String[] records = output.split("\0");
        for (int i = 0; i < records.length; i++) {
            String r = records[i];
            if (r.startsWith("# branch.oid ")) {
                String oid = r.substring("# branch.oid ".length());
                commit = "(initial)".equals(oid) ? null : oid;
            } else if (r.startsWith("# branch.head ")) {
                String head = r.substring("# branch.head ".length());
                branch = "(detached)".equals(head) ? null : head;
            } else if (r.startsWith("# branch.upstream ")) {
                upstream = r.substring("# branch.upstream ".length());
            } else if (r.startsWith("# branch.ab ")) {
                String[] ab = r.substring("# branch.ab ".length()).split(" ");
                ahead = Math.abs(Integer.parseInt(ab[0]));
                behind = Math.abs(Integer.parseInt(ab[1]));
            } else if (r.startsWith("1 ")) {
                // 1 XY sub mH mI mW hH hI path
                String[] f = r.split(" ", 9);
                entries.add(changed(f[1], f[8], null));
            } else if (r.startsWith("2 ")) {
                // 2 XY sub mH mI mW hH hI Xscore path, then the original path as the next record
                String[] f = r.split(" ", 10);
                String from = i + 1 < records.length ? records[++i] : null;
                entries.add(changed(f[1], f[9], from));
            } else if (r.startsWith("u ")) {
                // u XY sub m1 m2 m3 mW h1 h2 h3 path
                String[] f = r.split(" ", 11);
                entries.add(new Entry(f[10], "conflicted", f[1], true, Optional.empty()));
            } else if (r.startsWith("? ")) {
                entries.add(new Entry(r.substring(2), "untracked", "??", false, Optional.empty()));
            }
        }
        return new GitStatus(
                Optional.ofNullable(branch),
                Optional.ofNullable(commit),
                Optional.ofNullable(upstream),
                ahead,
                behind,
                entries);
    }

    private static Entry changed(String xy, String path, String from) {
        char index = xy.charAt(0);
        char tree = xy.charAt(1);
        return new Entry(
                path,
                word(index != '.' ? index : tree),
                xy,
                index != '.',
                Optional.ofNullable(from));
    }

    private static String word(char letter) {
        return switch (letter) {
            case 'A' -> "added";
            case 'D' -> "deleted";
            case 'R' -> "renamed";
            case 'C' -> "copied";
            case 'T' -> "type-changed";
            default -> "modified";
        };
    }
}
