package dev.agentbox.run.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.agentbox.platform.ShellQuote;
import dev.agentbox.run.harness.AgentCommands;
import dev.agentbox.run.journal.JournalReaderOptions.Mode;
import dev.agentbox.sandbox.spi.JournalNames;
import dev.agentbox.sandbox.spi.ManagedSandbox;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxLabels;
import dev.agentbox.sandbox.spi.SandboxProvider;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The journal launcher and reader against a real provider (docs/behavior.md JN-01..JN-14), in both
 * read modes. One sandbox per class; every test uses its own runId, so tests never share a journal.
 * Bounds are shortened so that failure paths finish in about a second.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(60)
public abstract class JournalReaderContract {

    /**
     * Unique per class, carried as the sandbox key label: cleanup finds exactly our sandboxes by
     * it.
     */
    protected final String runKey = "journal-" + UUID.randomUUID().toString().substring(0, 8);

    protected SandboxProvider provider;
    protected SandboxHandle sb;
    protected JournalLauncher launcher;

    /** Sandboxes made by tests besides {@link #sb}. */
    protected final List<SandboxHandle> extra = new CopyOnWriteArrayList<>();

    protected abstract SandboxProvider newProvider();

    /**
     * The commands for the shared sandbox's journals, in the directory the sandbox itself names.
     */
    protected JournalCommand commands() {
        return JournalCommand.of(sb);
    }

    /** Removes whatever the class left besides sandboxes (temporary folders). */
    protected void cleanupExtras() {}

    protected SandboxCreateInput baseInput() {
        return SandboxCreateInput.defaults().withKey(runKey, "tenant-journal");
    }

    @BeforeAll
    void createSharedSandbox() {
        provider = newProvider();
        sb = provider.create(baseInput().withRequestedId(runKey + "-main"));
        launcher = new JournalLauncher();
    }

    @AfterAll
    void destroyEverything() {
        RuntimeException first = null;
        for (SandboxHandle h : extra) {
            try {
                h.destroy();
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        if (sb != null) {
            sb.destroy();
        }
        if (provider != null) {
            for (ManagedSandbox m : provider.listManaged()) {
                if (runKey.equals(m.labels().get(SandboxLabels.KEY))) {
                    provider.destroy(m.id());
                }
            }
            assertThat(provider.listManaged())
                    .noneMatch(m -> runKey.equals(m.labels().get(SandboxLabels.KEY)));
        }
        cleanupExtras();
        if (first != null) {
            throw first;
        }
    }

    // ------------------------------------------------------------------ helpers

    protected JournalReaderOptions options(Mode mode) {
        return JournalReaderOptions.defaults()
                .withMode(mode)
                .withFirstByteBound(Duration.ofSeconds(5))
                .withWriterProbeAfter(Duration.ofMillis(500));
    }

    protected static String newRunId(String what) {
        return "jr-" + what + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private final Map<String, JournalId> journals = new ConcurrentHashMap<>();

    /**
     * The journal of {@code runId}: a random nonce of its own, the same on every call (as a run's
     * record keeps it).
     */
    protected JournalId id(String runId) {
        return journals.computeIfAbsent(runId, JournalId::random);
    }

    /** What a reader delivered up to its sentinel (or its failure). */
    protected record Outcome(List<JournalLine> lines, OptionalInt exitCode, long position) {
        List<String> texts() {
            return lines.stream().map(JournalLine::text).toList();
        }
    }

    /** Polls until the sentinel, within {@code bound}. */
    protected static Outcome readToEnd(JournalReader reader, Duration bound) {
        List<JournalLine> lines = new ArrayList<>();
        long deadline = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() < deadline) {
            JournalReader.Batch b = reader.poll(Duration.ofMillis(500));
            lines.addAll(b.lines());
            if (b.finished()) {
                return new Outcome(lines, b.exitCode(), reader.position());
            }
        }
        throw new AssertionError("no sentinel within " + bound + "; lines so far: " + lines);
    }

    /** Polls until at least one line arrived, within {@code bound}. */
    protected static List<JournalLine> readSome(JournalReader reader, Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() < deadline) {
            JournalReader.Batch b = reader.poll(Duration.ofMillis(200));
            if (!b.lines().isEmpty() || b.finished()) {
                return b.lines();
            }
        }
        throw new AssertionError("no line within " + bound);
    }

    protected String journal(String runId) {
        return sh("cat " + ShellQuote.single(commands().journalPath(runId)));
    }

    protected String sh(String command) {
        return sb.process().exec(command).stdout();
    }

    /** Writes a journal by hand, as if an agent had, but with no writer process behind it. */
    protected void writeJournalByHand(String runId, String content) {
        writeFile(commands().journalPath(runId), content);
    }

    /**
     * Writes an absolute path through exec (the local provider's fs refuses paths outside its
     * workspace).
     */
    protected void writeFile(String path, String content) {
        assertThat(
                        sb.process()
                                .exec(
                                        "mkdir -p "
                                                + ShellQuote.single(commands().dir())
                                                + " && printf '%s' "
                                                + ShellQuote.single(content)
                                                + " > "
                                                + ShellQuote.single(path))
                                .exitCode())
                .isZero();
    }

    /** A file in the sandbox's workspace the agent (cwd = workspace) waits for. */
    protected void openGate(String name) {
        sb.fs().write(name, "");
    }

    protected static String waitFor(String gate) {
        return "while [ ! -f " + gate + " ]; do sleep 0.05; done";
    }

    /**
     * The processes that hold the journal open for reading: a follow reader's {@code tail}, or the
     * sandbox helper following it for a pushed read. The agent's own writer holds it write-only and
     * is not one of them.
     */
    protected List<String> followersOf(String runId) {
        // One ls for every descriptor of every process (a readlink each would be thousands of
        // processes on a host), awk picks the journal's, the shell checks their open flags.
        String script =
                "ls -l /proc/[0-9]*/fd 2>/dev/null | awk -v e="
                        + ShellQuote.single("/" + JournalNames.encode(runId) + ".ndjson")
                        + " '/^\\/proc\\/[0-9]+\\/fd:$/ { d = substr($0, 1, length($0) - 4); next }"
                        + " { n = split($0, a, \" -> \"); if (n == 2 && length(a[2]) >= length(e)"
                        + " && substr(a[2], length(a[2]) - length(e) + 1) == e)"
                        + " { m = split(a[1], b, \" \"); print d \"/fdinfo/\" b[m] } }'"
                        + " | while read f; do fl=; while read k v; do [ \"$k\" = flags: ] && fl=$v; done < $f;"
                        + " [ -n \"$fl\" ] && [ $((0$fl & 3)) -eq 0 ] && echo ${f%/fdinfo/*}; done 2>/dev/null | sort -u";
        return sh(script).lines().filter(l -> !l.isBlank()).toList();
    }

    // ------------------------------------------------------------------ tests

    @ParameterizedTest
    @EnumSource(names = {"FOLLOW", "POLL"})
    @DisplayName(
            "JN-01 printf of two lines: journal = the two lines + sentinel; reader delivers exactly them, then exit 0")
    void twoLinesThenExitZero_JN01(Mode mode) {
        String runId = newRunId("jn01 a;b");
        launcher.start(sb, id(runId), "printf '{\"a\":1}\\n{\"b\":2}\\n'");
        try (JournalReader reader = JournalReader.open(sb, id(runId), 0, options(mode))) {
            assertThat(reader.mode()).isEqualTo(mode);
            Outcome o = readToEnd(reader, Duration.ofSeconds(15));
            assertThat(o.lines())
                    .containsExactly(
                            new JournalLine("{\"a\":1}", 8), new JournalLine("{\"b\":2}", 16));
            assertThat(o.exitCode()).hasValue(0);
            String sentinel = ExitSentinel.of(id(runId)).line(0);
            assertThat(journal(runId)).isEqualTo("{\"a\":1}\n{\"b\":2}\n" + sentinel + "\n");
            assertThat(o.position()).isEqualTo(16 + sentinel.length() + 1);
            // finished: later polls deliver nothing and the same exit code
            JournalReader.Batch again = reader.poll(Duration.ZERO);
            assertThat(again.lines()).isEmpty();
            assertThat(again.exitCode()).hasValue(0);
        }
    }

    @Test
    @DisplayName(
            "JN-01 a reader of a journal the caller has just seen exist reads it the same, from byte 0")
    void aReaderOfAJournalJustSeenReadsTheSameLines_JN01() {
        String runId = newRunId("jn01 seen");
        launcher.start(sb, id(runId), "printf '{\"a\":1}\\n{\"b\":2}\\n'");
        await().atMost(Duration.ofSeconds(15)).until(() -> launcher.exists(sb, runId));
        try (JournalReader reader = JournalReader.openSeen(sb, id(runId), 0)) {
            Outcome o = readToEnd(reader, Duration.ofSeconds(15));
            assertThat(o.texts()).containsExactly("{\"a\":1}", "{\"b\":2}");
            assertThat(o.exitCode()).hasValue(0);
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"FOLLOW", "POLL"})
    @DisplayName(
            "JN-02 stderr goes only to .err; exit 7 is the exit code; errTail holds the stderr")
    void stderrOnlyInErrAndExitSeven_JN02(Mode mode) {
        String runId = newRunId("jn02");
        launcher.start(sb, id(runId), "echo out; echo boom >&2; exit 7");
        try (JournalReader reader = JournalReader.open(sb, id(runId), 0, options(mode))) {
            Outcome o = readToEnd(reader, Duration.ofSeconds(15));
            assertThat(o.texts()).containsExactly("out");
            assertThat(o.exitCode()).hasValue(7);
        }
        assertThat(journal(runId)).doesNotContain("boom").contains("\"__exit\":7");
        assertThat(launcher.errTail(sb, runId, 1000)).isEqualTo("boom\n");
    }

    @Test
    @DisplayName(
            "errTail is the last 1000 characters (multi-byte safe) and empty when the .err file is missing")
    void errTailIsBoundedAndEmptyWhenMissing() {
        String runId = newRunId("errtail");
        assertThat(launcher.errTail(sb, runId, 1000)).isEmpty();
        StringBuilder err = new StringBuilder();
        for (int i = 0; i < 400; i++) {
            err.append("é").append(i % 10).append("€\n");
        }
        writeFile(commands().errPath(runId), err.toString());
        String tail = launcher.errTail(sb, runId, 1000);
        assertThat(tail).hasSize(1000);
        assertThat(err.toString()).endsWith(tail);
    }

    @ParameterizedTest
    @EnumSource(names = {"FOLLOW", "POLL"})
    @DisplayName(
            "JN-03 a reader resumes from a byte position; multi-byte characters are counted in bytes")
    void resumesFromABytePosition_JN03(Mode mode) {
        String runId = newRunId("jn03");
        launcher.start(sb, id(runId), "printf '€uro\\n日本語\\nplain\\n'");
        Outcome all;
        try (JournalReader reader = JournalReader.open(sb, id(runId), 0, options(mode))) {
            all = readToEnd(reader, Duration.ofSeconds(15));
        }
        assertThat(all.texts()).containsExactly("€uro", "日本語", "plain");
        assertThat(all.lines()).extracting(JournalLine::endOffset).containsExactly(7L, 17L, 23L);

        try (JournalReader resumed = JournalReader.open(sb, id(runId), 7, options(mode))) {
            Outcome rest = readToEnd(resumed, Duration.ofSeconds(15));
            assertThat(rest.lines())
                    .containsExactly(new JournalLine("日本語", 17), new JournalLine("plain", 23));
            assertThat(rest.exitCode()).hasValue(0);
            assertThat(rest.position()).isEqualTo(all.position());
        }
        try (JournalReader atEnd = JournalReader.open(sb, id(runId), 23, options(mode))) {
            Outcome none = readToEnd(atEnd, Duration.ofSeconds(15));
            assertThat(none.lines()).isEmpty();
            assertThat(none.exitCode()).hasValue(0);
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"FOLLOW", "POLL"})
    @DisplayName(
            "JN-04 lines are delivered as they are written: the agent writes its second line only after the reader got the first")
    void deliversLinesAsWritten_JN04(Mode mode) {
        String runId = newRunId("jn04");
        String gate = "gate-" + runId;
        launcher.start(sb, id(runId), "echo first; " + waitFor(gate) + "; echo second");
        try (JournalReader reader = JournalReader.open(sb, id(runId), 0, options(mode))) {
            List<JournalLine> first = readSome(reader, Duration.ofSeconds(10));
            assertThat(first).extracting(JournalLine::text).containsExactly("first");
            openGate(gate); // causal: "second" cannot exist before this write
            Outcome rest = readToEnd(reader, Duration.ofSeconds(10));
            assertThat(rest.texts()).containsExactly("second");
            assertThat(rest.exitCode()).hasValue(0);
        }
    }

    @Test
    @DisplayName(
            "JN-05 closing a follow reader stops its in-sandbox follower (tail -f, or the pushing helper); no process follows the journal afterwards")
    void closingKillsTheTail_JN05() {
        String runId = newRunId("jn05");
        String gate = "gate-" + runId;
        launcher.start(sb, id(runId), "echo one; " + waitFor(gate));
        try {
            JournalReader reader = JournalReader.open(sb, id(runId), 0, options(Mode.FOLLOW));
            try {
                assertThat(readSome(reader, Duration.ofSeconds(10)))
                        .extracting(JournalLine::text)
                        .containsExactly("one");
                assertThat(followersOf(runId))
                        .as("the follow reader's follower while it reads")
                        .hasSize(1);
            } finally {
                reader.close();
            }
            // a tail is killed and waited for; a pushing helper notices the closed connection
            await().atMost(Duration.ofSeconds(5)).until(() -> followersOf(runId).isEmpty());
            assertThatThrownBy(() -> reader.poll(Duration.ZERO))
                    .isInstanceOf(IllegalStateException.class);
        } finally {
            openGate(gate);
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"FOLLOW", "POLL"})
    @DisplayName(
            "JN-06 a half-written line is never delivered; the position advances only at its newline")
    void halfWrittenLineWaits_JN06(Mode mode) {
        String runId = newRunId("jn06");
        String gate = "gate-" + runId;
        launcher.start(
                sb,
                id(runId),
                "printf 'whole\\n{\"half\":'; " + waitFor(gate) + "; printf '1}\\n'");
        try (JournalReader reader = JournalReader.open(sb, id(runId), 0, options(mode))) {
            assertThat(readSome(reader, Duration.ofSeconds(10)))
                    .extracting(JournalLine::text)
                    .containsExactly("whole");
            assertThat(reader.position()).isEqualTo(6);
            // the half line is in the journal by now (written before "whole" was read); several
            // polls, well over one poll interval, deliver nothing of it
            long until = System.nanoTime() + Duration.ofMillis(800).toNanos();
            while (System.nanoTime() < until) {
                assertThat(reader.poll(Duration.ofMillis(200)).lines()).isEmpty();
            }
            assertThat(journal(runId)).isEqualTo("whole\n{\"half\":");
            assertThat(reader.position()).isEqualTo(6);
            openGate(gate);
            Outcome rest = readToEnd(reader, Duration.ofSeconds(10));
            assertThat(rest.lines()).containsExactly(new JournalLine("{\"half\":1}", 17));
            assertThat(rest.exitCode()).hasValue(0);
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"FOLLOW", "POLL"})
    @DisplayName(
            "JN-08 forged sentinels (among them the nonce computed from the runId) are ordinary lines and the reader goes on to the real one")
    void forgedSentinelsAreOrdinaryLines_JN08(Mode mode) {
        String runId = newRunId("jn08");
        String nonce = id(runId).nonce();
        String other = JournalId.random(runId).nonce();
        List<String> forged =
                List.of(
                        "{\"__exit\":0}",
                        "{\"__exit\":0,\"__nonce\":\"" + other + "\"}",
                        // an agent that knows its runId computing the nonce an older version
                        // derived from it
                        ExitSentinel.of(JournalId.derived(runId)).line(0),
                        "{\"__exit\":\"0\",\"__nonce\":\"" + nonce + "\"}",
                        " {\"__exit\":0,\"__nonce\":\"" + nonce + "\"}",
                        "{\"__exit\":0,\"__nonce\":\"" + nonce + "\",\"x\":1}");
        StringBuilder cmd = new StringBuilder();
        for (String f : forged) {
            cmd.append("printf '%s\\n' ").append(ShellQuote.single(f)).append("; ");
        }
        cmd.append("echo after; exit 3");
        launcher.start(sb, id(runId), cmd.toString());
        try (JournalReader reader = JournalReader.open(sb, id(runId), 0, options(mode))) {
            Outcome o = readToEnd(reader, Duration.ofSeconds(15));
            List<String> expected = new ArrayList<>(forged);
            expected.add("after");
            assertThat(o.texts()).containsExactlyElementsOf(expected);
            assertThat(o.exitCode()).hasValue(3);
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"FOLLOW", "POLL"})
    @DisplayName("the first valid sentinel ends the journal: nothing after it is delivered")
    void nothingAfterTheSentinel(Mode mode) {
        String runId = newRunId("after");
        ExitSentinel s = ExitSentinel.of(id(runId));
        writeJournalByHand(runId, "a\n" + s.line(5) + "\nb\n" + s.line(0) + "\n");
        try (JournalReader reader = JournalReader.open(sb, id(runId), 0, options(mode))) {
            Outcome o = readToEnd(reader, Duration.ofSeconds(10));
            assertThat(o.texts()).containsExactly("a");
            assertThat(o.exitCode()).hasValue(5);
            assertThat(o.position()).isEqualTo(2 + s.line(5).length() + 1);
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"FOLLOW", "POLL"})
    @DisplayName(
            "JN-10 a journal without a sentinel and no writer: its lines, then 'ended without an exit sentinel', never a hang")
    void journalWithoutSentinelAndNoWriterEnds_JN10(Mode mode) {
        String runId = newRunId("jn10");
        writeJournalByHand(runId, "x\n{\"partial\":");
        long t0 = System.nanoTime();
        try (JournalReader reader = JournalReader.open(sb, id(runId), 0, options(mode))) {
            List<String> got = new ArrayList<>();
            assertThatThrownBy(
                            () -> {
                                while (true) {
                                    reader.poll(Duration.ofMillis(300))
                                            .lines()
                                            .forEach(l -> got.add(l.text()));
                                }
                            })
                    .isInstanceOf(JournalEndedWithoutSentinelException.class)
                    .hasMessageContaining("ended without an exit sentinel")
                    .hasMessageContaining("writer");
            assertThat(got).containsExactly("x");
            assertThat(reader.position()).isEqualTo(2);
            // sticky
            assertThatThrownBy(() -> reader.poll(Duration.ZERO))
                    .isInstanceOf(JournalEndedWithoutSentinelException.class);
        }
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
        if (mode == Mode.FOLLOW) {
            await().atMost(Duration.ofSeconds(5)).until(() -> followersOf(runId).isEmpty());
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"FOLLOW", "POLL"})
    @DisplayName(
            "JN-10 the journaled shell killed mid-run (no sentinel written): the reader fails clearly, never hangs")
    void writerKilledMidRun_JN10(Mode mode) {
        String runId = newRunId("jn10kill");
        String gate = "gate-" + runId;
        // $$ in the agent's subshell is the journaled shell's pid; its process group holds the
        // shell, the subshell and the agent
        launcher.start(
                sb,
                id(runId),
                "echo $$ > pid-" + runId + "; echo one; " + waitFor(gate) + "; echo two");
        try (JournalReader reader = JournalReader.open(sb, id(runId), 0, options(mode))) {
            assertThat(readSome(reader, Duration.ofSeconds(10)))
                    .extracting(JournalLine::text)
                    .containsExactly("one");
            String kill =
                    sb.process()
                            .exec(
                                    "p=$(cat pid-"
                                            + runId
                                            + "); g=$(cut -d' ' -f5 /proc/$p/stat); "
                                            + "[ \"$g\" -gt 1 ] && kill -9 -$g; echo $g")
                            .stdout();
            assertThat(kill.strip()).matches("[0-9]+");
            long t0 = System.nanoTime();
            assertThatThrownBy(
                            () -> {
                                while (true) {
                                    assertThat(reader.poll(Duration.ofMillis(300)).lines())
                                            .isEmpty();
                                }
                            })
                    .isInstanceOf(JournalEndedWithoutSentinelException.class)
                    .hasMessageContaining("ended without an exit sentinel");
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
        } finally {
            openGate(gate);
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"FOLLOW", "POLL"})
    @DisplayName(
            "JN-11 no first byte within the bound and no writer is journal-stalled: a journal never started, and an empty one nobody writes")
    void noFirstByteAndNoWriterIsStalled_JN11(Mode mode) {
        String neverStarted = newRunId("jn11none");
        JournalReaderOptions o = options(mode).withFirstByteBound(Duration.ofMillis(800));
        long t0 = System.nanoTime();
        try (JournalReader reader = JournalReader.open(sb, id(neverStarted), 0, o)) {
            assertThatThrownBy(() -> pollForever(reader))
                    .isInstanceOf(JournalStalledException.class)
                    .hasMessageContaining("journal-stalled")
                    .hasMessageContaining("does not exist");
        }
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));

        // The file is there, empty, but no process writes it.
        String orphan = newRunId("jn11orphan");
        writeJournalByHand(orphan, "");
        try (JournalReader reader = JournalReader.open(sb, id(orphan), 0, o)) {
            assertThatThrownBy(() -> pollForever(reader))
                    .isInstanceOf(JournalStalledException.class)
                    .hasMessageContaining("exists but is empty");
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"FOLLOW", "POLL"})
    @DisplayName(
            "JN-11 an agent that started may be silent far past the first-byte bound: its first line still arrives")
    void silentStartedAgentIsNotStalled_JN11(Mode mode) {
        String silent = newRunId("jn11silent");
        String gate = "gate-" + silent;
        JournalReaderOptions o =
                options(mode)
                        .withFirstByteBound(Duration.ofMillis(800))
                        .withWriterProbeAfter(Duration.ofMillis(300));
        launcher.start(sb, id(silent), waitFor(gate) + "; echo late");
        try (JournalReader reader = JournalReader.open(sb, id(silent), 0, o)) {
            long quietUntil = System.nanoTime() + Duration.ofSeconds(3).toNanos();
            while (System.nanoTime() < quietUntil) {
                assertThat(reader.poll(Duration.ofMillis(300)).lines()).isEmpty();
            }
            openGate(gate);
            Outcome all = readToEnd(reader, Duration.ofSeconds(15));
            assertThat(all.texts()).containsExactly("late");
            assertThat(all.exitCode()).hasValue(0);
        } finally {
            openGate(gate);
        }
    }

    private static void pollForever(JournalReader reader) {
        while (true) {
            reader.poll(Duration.ofMillis(300));
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"FOLLOW", "POLL"})
    @DisplayName(
            "JN-11 a slow but started agent is never cut off: silence far past the bounds, then the rest")
    void slowStartedAgentIsNotCutOff_JN11(Mode mode) {
        String runId = newRunId("jn11slow");
        JournalReaderOptions o =
                options(mode)
                        // The bound only has to cover starting the agent (a docker exec, slow
                        // on a loaded host); the pause after the first line is twice as long.
                        .withFirstByteBound(Duration.ofMillis(1500))
                        .withWriterProbeAfter(Duration.ofMillis(300));
        launcher.start(sb, id(runId), "echo first; sleep 3; echo second");
        try (JournalReader reader = JournalReader.open(sb, id(runId), 0, o)) {
            Outcome all = readToEnd(reader, Duration.ofSeconds(15));
            assertThat(all.texts()).containsExactly("first", "second");
            assertThat(all.exitCode()).hasValue(0);
        }
    }

    @Test
    @DisplayName(
            "the detached start returns at once and the agent outlives the starting exec; exists and delete")
    void detachedStartOutlivesTheStartingExec() {
        String runId = newRunId("detached");
        String gate = "gate-" + runId;
        long t0 = System.nanoTime();
        launcher.start(sb, id(runId), "echo started; " + waitFor(gate) + "; echo done");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
        // the starting exec is over; the agent runs on: it writes, waits for the gate, finishes
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!launcher.exists(sb, runId) || !journal(runId).equals("started\n")) {
            assertThat(System.nanoTime()).as("the agent wrote its first line").isLessThan(deadline);
            sleep(50);
        }
        assertThat(launcher.exists(sb, runId)).isTrue();
        openGate(gate);
        String sentinel = ExitSentinel.of(id(runId)).line(0);
        while (!journal(runId).contains(sentinel) && System.nanoTime() < deadline) {
            sleep(100);
        }
        assertThat(journal(runId)).isEqualTo("started\ndone\n" + sentinel + "\n");
        launcher.delete(sb, runId);
        assertThat(launcher.exists(sb, runId)).isFalse();
        assertThat(sh("ls " + ShellQuote.single(commands().dir())))
                .doesNotContain(JournalNames.encode(runId));
        launcher.delete(sb, runId); // deleting missing files succeeds
    }

    @Test
    @DisplayName(
            "a 1 MiB prompt (quotes, $(), newlines, non-ASCII) reaches the CLI on stdin intact, never as an argument; its file is 0600 and is deleted with the journal")
    void aOneMebibytePromptReachesTheCliOnStdinIntact() throws Exception {
        String runId = newRunId("prompt");
        String prompt = Prompts.atLeast(1024 * 1024);
        byte[] bytes = prompt.getBytes(StandardCharsets.UTF_8);
        // A stand-in `claude` first on PATH: prints its arguments, then the length and sha256 of
        // its stdin.
        String bin = "bin-" + runId;
        sb.fs()
                .write(
                        bin + "/claude",
                        "#!/bin/sh\nfor a in \"$@\"; do printf 'arg:%s\\n' \"$a\"; done\n"
                                + "cat > \"$0.stdin\"\nwc -c < \"$0.stdin\" | tr -d ' '\nsha256sum < \"$0.stdin\" | cut -c1-64\n");
        assertThat(sb.process().exec("chmod +x " + ShellQuote.single(bin + "/claude")).exitCode())
                .isZero();
        AgentInvocation claude = AgentCommands.claudeCode(prompt);
        AgentInvocation onPath =
                AgentInvocation.withPrompt(
                        "PATH=\"$PWD/" + bin + ":$PATH\"; " + claude.command(), prompt);

        launcher.start(sb, id(runId), onPath);
        try (JournalReader reader = JournalReader.open(sb, id(runId), 0, options(Mode.POLL))) {
            Outcome o = readToEnd(reader, Duration.ofSeconds(30));
            assertThat(o.exitCode()).as(launcher.errTail(sb, runId, 1000)).hasValue(0);
            assertThat(o.texts())
                    .containsExactly(
                            "arg:-p",
                            "arg:--output-format",
                            "arg:stream-json",
                            "arg:--verbose",
                            "arg:--permission-mode",
                            "arg:bypassPermissions",
                            String.valueOf(bytes.length),
                            HexFormat.of()
                                    .formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)));
        }
        String promptFile = ShellQuote.single(commands().promptPath(runId));
        assertThat(sh("stat -c %a " + promptFile).strip()).isEqualTo("600");
        assertThat(
                        sh(
                                "ls canary 2>/dev/null; ls "
                                        + ShellQuote.single(commands().dir())
                                        + "/canary 2>/dev/null"))
                .isEmpty();
        launcher.delete(sb, runId);
        assertThat(sb.process().exec("[ -e " + promptFile + " ]").exitCode()).isNotZero();
        assertThat(launcher.exists(sb, runId)).isFalse();
    }

    @ParameterizedTest
    @EnumSource(names = {"FOLLOW", "POLL"})
    @DisplayName(
            "a line over the cap is delivered truncated with its real end offset; the next line is whole")
    void overlongLineIsTruncated(Mode mode) {
        String runId = newRunId("cap");
        launcher.start(sb, id(runId), "head -c 300000 /dev/zero | tr '\\000' a; echo; echo next");
        try (JournalReader reader =
                JournalReader.open(sb, id(runId), 0, options(mode).withMaxLineBytes(64 * 1024))) {
            Outcome o = readToEnd(reader, Duration.ofSeconds(15));
            assertThat(o.lines()).hasSize(2);
            JournalLine big = o.lines().get(0);
            assertThat(big.truncated()).isTrue();
            assertThat(big.text()).hasSize(64 * 1024).matches("a+");
            assertThat(big.endOffset()).isEqualTo(300_001);
            assertThat(o.lines().get(1)).isEqualTo(new JournalLine("next", 300_006));
            assertThat(o.exitCode()).hasValue(0);
        }
    }

    @Test
    @DisplayName(
            "follow: a backlog over the buffer bound restarts the tail where it stopped; every line once, in order")
    void followBufferBoundRestartsTheTail() {
        String runId = newRunId("backlog");
        String pad = "x".repeat(56);
        launcher.start(
                sb,
                id(runId),
                "i=0; while [ $i -lt 300 ]; do echo \"line-$i-" + pad + "\"; i=$((i+1)); done");
        JournalReaderOptions o = options(Mode.FOLLOW).withMaxBufferedBytes(2000);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            expected.add("line-" + i + "-" + pad);
        }
        // let the whole journal exist first, so the first tail delivers far more than the bound at
        // once
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!journal(runId).contains("__exit") && System.nanoTime() < deadline) {
            sleep(100);
        }
        try (JournalReader reader = JournalReader.open(sb, id(runId), 0, o)) {
            Outcome out = readToEnd(reader, Duration.ofSeconds(20));
            assertThat(out.texts()).containsExactlyElementsOf(expected);
            assertThat(out.exitCode()).hasValue(0);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> followersOf(runId).isEmpty());
    }

    protected static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
