package dev.agentbox.sandbox.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@link GitStatus#parse} on output of {@code git status --porcelain=v2 --branch -z}. */
class GitStatusTest {

    private static final String OID = "20939a595d5895a4e2770381066e6abea18fafe0";

    @Test
    void branchUpstreamAheadBehindAndEveryKindOfEntry() {
        String out =
                "# branch.oid "
                        + OID
                        + "\0# branch.head main\0# branch.upstream origin/main\0# branch.ab +2 -1\0"
                        + "1 .M N... 100644 100644 100644 aaa aaa src/a file.txt\0"
                        + "1 M. N... 100644 100644 100644 aaa bbb staged.txt\0"
                        + "1 AM N... 000000 100644 100644 000 ccc added.txt\0"
                        + "1 .D N... 100644 100644 000000 aaa aaa gone.txt\0"
                        + "2 RM N... 100644 100644 100644 587b 587b R100 g\0f\0"
                        + "u UU N... 100644 100644 100644 100644 a b c both.txt\0"
                        + "? sp ace.txt\0"
                        + "? u/\0";

        GitStatus s = GitStatus.parse(out);

        assertThat(s.branch()).contains("main");
        assertThat(s.commit()).contains(OID);
        assertThat(s.upstream()).contains("origin/main");
        assertThat(s.ahead()).isEqualTo(2);
        assertThat(s.behind()).isEqualTo(1);
        assertThat(s.clean()).isFalse();
        assertThat(s.entries())
                .containsExactly(
                        new GitStatus.Entry(
                                "src/a file.txt", "modified", ".M", false, Optional.empty()),
                        new GitStatus.Entry("staged.txt", "modified", "M.", true, Optional.empty()),
                        new GitStatus.Entry("added.txt", "added", "AM", true, Optional.empty()),
                        new GitStatus.Entry("gone.txt", "deleted", ".D", false, Optional.empty()),
                        new GitStatus.Entry("g", "renamed", "RM", true, Optional.of("f")),
                        new GitStatus.Entry("both.txt", "conflicted", "UU", true, Optional.empty()),
                        new GitStatus.Entry(
                                "sp ace.txt", "untracked", "??", false, Optional.empty()),
                        new GitStatus.Entry("u/", "untracked", "??", false, Optional.empty()));
    }

    @Test
    void aFreshRepositoryHasNoCommitAndNoUpstreamAndIsClean() {
        GitStatus s = GitStatus.parse("# branch.oid (initial)\0# branch.head main\0");

        assertThat(s.branch()).contains("main");
        assertThat(s.commit()).isEmpty();
        assertThat(s.upstream()).isEmpty();
        assertThat(s.ahead()).isZero();
        assertThat(s.behind()).isZero();
        assertThat(s.clean()).isTrue();
    }

    @Test
    void aDetachedHeadHasNoBranchAndUnknownRecordsAreSkipped() {
        GitStatus s =
                GitStatus.parse(
                        "# branch.oid "
                                + OID
                                + "\0# branch.head (detached)\0# stash 3\0! ignored\0");

        assertThat(s.branch()).isEmpty();
        assertThat(s.commit()).contains(OID);
        assertThat(s.clean()).isTrue();
    }
}
