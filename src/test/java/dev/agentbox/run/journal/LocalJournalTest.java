package dev.agentbox.run.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.platform.ShellQuote;
import dev.agentbox.run.journal.JournalReaderOptions.Mode;
import dev.agentbox.sandbox.local.LocalSandboxProvider;
import dev.agentbox.sandbox.local.LocalSettings;
import dev.agentbox.sandbox.spi.JournalNames;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxProvider;
import dev.agentbox.testing.Slow;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The journal suite on the local-process provider. Its sandboxes share the host, so their journals
 * go to their tenant's directory under the provider's root (here this class's temporary folder)
 * instead of the standard one: the commands are the same, only the directory differs.
 */
@Slow
class LocalJournalTest extends JournalReaderContract {

    private Path root;

    @Override
    protected SandboxProvider newProvider() {
        try {
            root = Files.createTempDirectory("agentbox-journal-test").toAbsolutePath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new LocalSandboxProvider(
                new LocalSettings(true, root),
                new DaemonThreads("test-journal-local"),
                Clock.systemUTC());
    }

    private SandboxHandle sandboxOf(String tenant) {
        SandboxHandle h = provider.create(SandboxCreateInput.defaults().withKey(runKey, tenant));
        extra.add(h);
        return h;
    }

    @ParameterizedTest
    @EnumSource(names = {"FOLLOW", "POLL"})
    @DisplayName(
            "two tenants' local sandboxes run the same runId at once: each reader gets exactly its own lines, exit code and stderr, and deleting one journal leaves the other")
    void sameRunIdInTwoTenantsIsTwoIndependentJournals(Mode mode) {
        SandboxHandle a = sandboxOf("tenant/a");
        SandboxHandle b = sandboxOf("tenant 'b'");
        String runId = newRunId("shared");
        JournalId journalA = JournalId.random(runId);
        JournalId journalB = JournalId.random(runId);
        // both agents wait for one gate, so that they write their journals at the same time
        String gate = ShellQuote.single(root + "/gate-" + mode);
        String wait = "while [ ! -f " + gate + " ]; do sleep 0.05; done; ";
        launcher.start(
                a,
                journalA,
                wait + "for i in 1 2 3; do echo \"a-$i\"; sleep 0.1; done; echo a-err >&2; exit 3");
        launcher.start(
                b,
                journalB,
                wait + "for i in 1 2 3; do echo \"b-$i\"; sleep 0.1; done; echo b-err >&2; exit 4");
        assertThat(a.process().exec("touch " + gate).exitCode()).isZero();

        try (JournalReader readerA = JournalReader.open(a, journalA, 0, options(mode));
                JournalReader readerB = JournalReader.open(b, journalB, 0, options(mode))) {
            Outcome outA = readToEnd(readerA, Duration.ofSeconds(15));
            Outcome outB = readToEnd(readerB, Duration.ofSeconds(15));
            assertThat(outA.texts()).containsExactly("a-1", "a-2", "a-3");
            assertThat(outA.exitCode()).hasValue(3);
            assertThat(outB.texts()).containsExactly("b-1", "b-2", "b-3");
            assertThat(outB.exitCode()).hasValue(4);
        }
        assertThat(launcher.errTail(a, runId, 100)).isEqualTo("a-err\n");
        assertThat(launcher.errTail(b, runId, 100)).isEqualTo("b-err\n");

        launcher.delete(a, runId);
        assertThat(launcher.exists(a, runId)).isFalse();
        assertThat(launcher.exists(b, runId)).isTrue();
    }

    @Test
    @DisplayName(
            "a local sandbox's journal directory is its tenant's, under the provider's root, and the same after a resume and after a server restart")
    void journalDirectoryIsPerTenantAndSurvivesResume() {
        SandboxHandle h = sandboxOf("tenant-resume");
        SandboxHandle sameTenant = sandboxOf("tenant-resume");
        SandboxHandle otherTenant = sandboxOf("tenant-other");
        String runId = newRunId("resume");
        launcher.start(h, id(runId), "echo before-resume");

        SandboxHandle resumed = provider.resume(h.id()).orElseThrow();
        LocalSandboxProvider restarted =
                new LocalSandboxProvider(
                        new LocalSettings(true, root),
                        new DaemonThreads("test-journal-local-restarted"),
                        Clock.systemUTC());
        SandboxHandle afterRestart = restarted.resume(h.id()).orElseThrow();

        assertThat(h.journalDirectory())
                .startsWith(root + "/")
                .isNotEqualTo(JournalNames.DEFAULT_DIR)
                .isEqualTo(sameTenant.journalDirectory())
                .isNotEqualTo(otherTenant.journalDirectory());
        assertThat(resumed.journalDirectory()).isEqualTo(h.journalDirectory());
        assertThat(afterRestart.journalDirectory()).isEqualTo(h.journalDirectory());
        try (JournalReader reader =
                JournalReader.open(afterRestart, id(runId), 0, options(Mode.POLL))) {
            Outcome o = readToEnd(reader, Duration.ofSeconds(15));
            assertThat(o.texts()).containsExactly("before-resume");
            assertThat(o.exitCode()).hasValue(0);
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"FOLLOW", "POLL"})
    @DisplayName(
            "another tenant's live agent with the same runId is no sign of life: a journal whose own writer is gone still ends")
    void anotherTenantsLiveWriterOfTheSameRunIdDoesNotKeepAReaderWaiting(Mode mode) {
        SandboxHandle a = sandboxOf("tenant-dead-writer");
        SandboxHandle b = sandboxOf("tenant-live-writer");
        String runId = newRunId("writer");
        String gate = "gate-" + runId;
        launcher.start(b, JournalId.random(runId), "echo alive; " + waitFor(gate));
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!launcher.exists(b, runId)) {
                assertThat(System.nanoTime()).as("b's agent started").isLessThan(deadline);
                sleep(50);
            }
            // a's agent died without its sentinel: its journal has no writer behind it
            JournalCommand inA = JournalCommand.of(a);
            assertThat(
                            a.process()
                                    .exec(
                                            "mkdir -p "
                                                    + ShellQuote.single(inA.dir())
                                                    + " && echo x > "
                                                    + ShellQuote.single(inA.journalPath(runId)))
                                    .exitCode())
                    .isZero();
            try (JournalReader reader =
                    JournalReader.open(a, JournalId.random(runId), 0, options(mode))) {
                // bounded: a reader that mistakes b's agent for its writer waits for ever
                long until = System.nanoTime() + Duration.ofSeconds(15).toNanos();
                assertThatThrownBy(
                                () -> {
                                    while (System.nanoTime() < until) {
                                        reader.poll(Duration.ofMillis(300));
                                    }
                                })
                        .isInstanceOf(JournalEndedWithoutSentinelException.class)
                        .hasMessageContaining("writer");
            }
        } finally {
            b.fs().write(gate, "");
        }
    }

    @Override
    protected void cleanupExtras() {
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
