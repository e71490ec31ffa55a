package dev.agentbox.reaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.platform.ShellQuote;
import dev.agentbox.reaper.RunExitProbe.Probe;
import dev.agentbox.reaper.RunExitProbe.Producing;
import dev.agentbox.reaper.RunExitProbe.Unknown;
import dev.agentbox.run.journal.JournalCommand;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.sandbox.docker.DockerSandboxProvider;
import dev.agentbox.sandbox.docker.DockerSettings;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.store.SandboxInstance;
import dev.agentbox.testing.NeedsDocker;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The reaper's exit probe against real containers, one of which stalls every journal read (its
 * {@code tail} replaced by a script that blocks forever on a FIFO): the stalled sandbox's run is
 * {@link Unknown} after the probe deadline and the other sandbox is still probed — one tenant's
 * sabotage costs a sweep at most one deadline, not the sweep itself.
 */
@Timeout(180)
@NeedsDocker
class RunExitProbeDeadlineDockerTest {

    private static final Duration DEADLINE = Duration.ofSeconds(3);

    @Test
    @DisplayName(
            "a sandbox whose journal read stalls gives unknown within the probe deadline; the next sandbox is still probed")
    void aStalledJournalReadCostsOneDeadlineAndTheSweepGoesOn() throws Exception {
        DockerSandboxProvider provider =
                new DockerSandboxProvider(
                        DockerSettings.defaults(),
                        new DaemonThreads("test-probe-deadline"),
                        Clock.systemUTC());
        ExecutorService pool =
                Executors.newSingleThreadExecutor(new DaemonThreads("test-probe-pool"));
        String tenant = PruneFixture.newTenant();
        try (PruneFixture fx = PruneFixture.open()) {
            SandboxHandle stalled =
                    provider.create(
                            SandboxCreateInput.defaults()
                                    .withKey(
                                            "stall-" + UUID.randomUUID().toString().substring(0, 8),
                                            tenant));
            SandboxHandle healthy =
                    provider.create(
                            SandboxCreateInput.defaults()
                                    .withKey(
                                            "ok-" + UUID.randomUUID().toString().substring(0, 8),
                                            tenant));
            try {
                RunRecordView stalledRun = runIn(fx, stalled, tenant, "stalled-run");
                RunRecordView healthyRun = runIn(fx, healthy, tenant, "healthy-run");
                exec(
                        stalled,
                        "mkfifo /tmp/stall && t=$(command -v tail) && rm -f \"$t\" "
                                + "&& printf '#!/bin/sh\\nread x < /tmp/stall\\n' > \"$t\" && chmod 755 \"$t\"");

                RunExitProbe probe =
                        new RunExitProbe(
                                fx.instances, name -> Optional.of(provider), pool, 1, DEADLINE);
                long start = System.nanoTime();
                // The stalled sandbox first, on a single probing thread: the healthy one is only
                // reached once the stalled one has been given up on.
                Map<?, Probe> answers = probe.probe(List.of(stalledRun, healthyRun));
                Duration took = Duration.ofNanos(System.nanoTime() - start);

                assertThat(answers.get(stalledRun.ref())).isInstanceOf(Unknown.class);
                assertThat(answers.get(healthyRun.ref())).isInstanceOf(Producing.class);
                assertThat(took)
                        .as("one deadline, the kill grace and two ordinary probes")
                        .isLessThan(DEADLINE.plusSeconds(10));
                assertThat(
                                exec(
                                                stalled,
                                                "for f in /proc/[0-9]*/cmdline; do tr '\\000' ' ' < \"$f\"; echo; done")
                                        .stdout())
                        .as("the stalled probe was killed, not left blocking in the sandbox")
                        .doesNotContain("read x")
                        .doesNotContain(" | base64");
            } finally {
                stalled.destroy();
                healthy.destroy();
            }
        } finally {
            pool.shutdownNow();
            provider.close();
        }
    }

    /** A detached run bound to the sandbox, with a journal that has no sentinel yet. */
    private static RunRecordView runIn(
            PruneFixture fx, SandboxHandle sb, String tenant, String runId) {
        SandboxInstance instance = fx.register(sb, tenant);
        RunRecordView run = fx.running(tenant, runId);
        fx.runs.setSandboxKey(run.ref(), Optional.of(instance.key()));
        String journal = JournalCommand.of(sb).journalPath(runId);
        exec(
                sb,
                "mkdir -p \"$(dirname "
                        + ShellQuote.single(journal)
                        + ")\" && echo '{\"a\":1}' > "
                        + ShellQuote.single(journal));
        return fx.runs.find(tenant, runId).orElseThrow();
    }

    private static ExecResult exec(SandboxHandle sb, String command) {
        ExecResult r = sb.process().exec(command);
        assertThat(r.exitCode()).as(command + ": " + r.stderr()).isZero();
        return r;
    }
}
