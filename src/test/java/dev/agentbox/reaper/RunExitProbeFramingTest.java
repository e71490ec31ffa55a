package dev.agentbox.reaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.journal.ExitSentinel;
import dev.agentbox.run.journal.JournalCommand;
import dev.agentbox.run.journal.JournalId;
import dev.agentbox.run.store.InMemoryRuns;
import dev.agentbox.run.store.NewRun;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.sandbox.spi.JournalNames;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The batched probe command run by a real shell over real files, and its framing parsed back: one
 * base64 stream for many journals must give each journal exactly its own last bytes.
 */
class RunExitProbeFramingTest {

    @TempDir Path dir;

    private final InMemoryRuns runs = new InMemoryRuns();

    private RunRecordView run(String runId) {
        return runs.create(NewRun.durable("t", runId, "th", Harness.COMMAND, Instant.EPOCH))
                .orElseThrow();
    }

    private void journal(String runId, byte[] content) throws Exception {
        Files.write(dir.resolve(JournalNames.encode(runId) + JournalNames.JOURNAL_SUFFIX), content);
    }

    /** The sentinel line the run's journaled shell writes: with the nonce kept in its record. */
    private static String sentinel(RunRecordView run, int code) {
        return ExitSentinel.of(run.journal()).line(code) + "\n";
    }

    private Map<RunRef, RunExitProbe.Probe> probe(List<RunRecordView> batch) throws Exception {
        JournalCommand commands = new JournalCommand(dir.toString());
        String boundary = RunExitProbe.newBoundary();
        Process p =
                new ProcessBuilder("sh", "-c", RunExitProbe.command(commands, batch, boundary))
                        .start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        p.getInputStream().transferTo(out);
        assertThat(p.waitFor()).isZero();
        Map<RunRef, RunExitProbe.Probe> answers = new HashMap<>();
        RunExitProbe.parse(batch, out.toString(StandardCharsets.US_ASCII), boundary, answers);
        return answers;
    }

    @Test
    void eachJournalOfABatchIsJudgedByItsOwnTail() throws Exception {
        RunRecordView finished = run("finished");
        RunRecordView failed = run("exit-7");
        RunRecordView producing = run("producing");
        RunRecordView noNewline = run("no-newline");
        RunRecordView missing = run("missing");
        RunRecordView forged = run("forged");
        RunRecordView lookalike = run("lookalike");
        RunRecordView big = run("big");
        journal("finished", ("line\n" + sentinel(finished, 0)).getBytes(StandardCharsets.UTF_8));
        journal("exit-7", ("€ and more\n" + sentinel(failed, 7)).getBytes(StandardCharsets.UTF_8));
        journal("producing", "still working\n".getBytes(StandardCharsets.UTF_8));
        // A window that does not end in a newline, right before the next record's header.
        journal(
                "no-newline",
                ("a line\n" + sentinel(noNewline, 0) + "partial").getBytes(StandardCharsets.UTF_8));
        // Another run's sentinel is ordinary output here.
        journal("forged", sentinel(finished, 0).getBytes(StandardCharsets.UTF_8));
        // Content that imitates a header without knowing this probe's boundary.
        journal(
                "lookalike",
                ("\n--agentbox-probe-00000000000000000000000000000000 6 ok\n" + sentinel(big, 3))
                        .getBytes(StandardCharsets.UTF_8));
        StringBuilder long1 = new StringBuilder();
        while (long1.length() < 20_000) {
            long1.append("filler ").append(UUID.randomUUID()).append('\n');
        }
        journal("big", (long1 + sentinel(big, 0)).getBytes(StandardCharsets.UTF_8));

        Map<RunRef, RunExitProbe.Probe> answers =
                probe(
                        List.of(
                                finished, failed, producing, noNewline, missing, forged, lookalike,
                                big));

        assertThat(answers.get(finished.ref())).isEqualTo(new RunExitProbe.Finished(0));
        assertThat(answers.get(failed.ref())).isEqualTo(new RunExitProbe.Finished(7));
        assertThat(answers.get(producing.ref())).isEqualTo(new RunExitProbe.Producing());
        assertThat(answers.get(noNewline.ref())).isEqualTo(new RunExitProbe.Finished(0));
        assertThat(answers.get(missing.ref())).isInstanceOf(RunExitProbe.Unknown.class);
        assertThat(answers.get(forged.ref())).isEqualTo(new RunExitProbe.Producing());
        assertThat(answers.get(lookalike.ref())).isEqualTo(new RunExitProbe.Producing());
        assertThat(answers.get(big.ref())).isEqualTo(new RunExitProbe.Finished(0));
    }

    @Test
    void aSentinelWithTheNonceComputedFromTheRunIdLeavesARunWithARandomNonceProducing()
            throws Exception {
        RunRecordView run = run("forges-its-end");
        // An agent that knows its runId ends its output with the nonce an older version derived
        // from it.
        String derived = ExitSentinel.of(JournalId.derived(run.runId())).line(0) + "\n";
        journal(run.runId(), ("working\n" + derived).getBytes(StandardCharsets.UTF_8));

        assertThat(run.journalNonce()).isNotEqualTo(JournalNames.nonce(run.runId()));
        assertThat(probe(List.of(run)).get(run.ref())).isEqualTo(new RunExitProbe.Producing());

        journal(
                run.runId(),
                ("working\n" + derived + sentinel(run, 0)).getBytes(StandardCharsets.UTF_8));
        assertThat(probe(List.of(run)).get(run.ref())).isEqualTo(new RunExitProbe.Finished(0));
    }

    @Test
    void twoRunsWithTheSameRunIdInTwoTenantsHaveDifferentNonces() {
        RunRecordView a =
                runs.create(
                                NewRun.durable(
                                        "tenant-a", "same", "th", Harness.COMMAND, Instant.EPOCH))
                        .orElseThrow();
        RunRecordView b =
                runs.create(
                                NewRun.durable(
                                        "tenant-b", "same", "th", Harness.COMMAND, Instant.EPOCH))
                        .orElseThrow();
        assertThat(a.journal().nonce()).isNotEqualTo(b.journal().nonce());
        assertThat(ExitSentinel.of(a.journal()).exitCode(ExitSentinel.of(b.journal()).line(0)))
                .isEmpty();
    }
}
