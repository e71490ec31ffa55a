package dev.agentbox.reaper;

import static dev.agentbox.reaper.PruneFixture.err;
import static dev.agentbox.reaper.PruneFixture.files;
import static dev.agentbox.reaper.PruneFixture.journals;
import static dev.agentbox.reaper.PruneFixture.ndjson;
import static dev.agentbox.reaper.PruneFixture.prompt;
import static dev.agentbox.reaper.PruneFixture.seed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.reaper.PruneResult.Kept;
import dev.agentbox.run.store.RunStatus;
import dev.agentbox.sandbox.docker.DockerSandboxProvider;
import dev.agentbox.sandbox.docker.DockerSettings;
import dev.agentbox.sandbox.spi.JournalNames;
import dev.agentbox.sandbox.spi.ManagedSandbox;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxLabels;
import dev.agentbox.testing.NeedsDocker;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Journal pruning in a real container with the BusyBox image: the standard journal directory,
 * BusyBox {@code stat}, {@code touch}, {@code rm} and ash.
 */
@Timeout(180)
@NeedsDocker
class JournalPrunerDockerBusyboxTest {

    static final Instant NOW = Instant.parse("2030-06-01T12:00:00Z");

    @Test
    @DisplayName(
            "in a BusyBox container: terminal and old orphan journals deleted; live, young orphan, foreign and undeletable ones kept")
    void prunesTheStandardDirectoryOfABusyboxContainer() {
        String key = "prune-" + UUID.randomUUID().toString().substring(0, 8);
        DockerSandboxProvider provider =
                new DockerSandboxProvider(
                        DockerSettings.builder().image("agentbox/sandbox:busybox").build(),
                        new DaemonThreads("test-prune-docker"),
                        Clock.systemUTC());
        try (PruneFixture fx = PruneFixture.open()) {
            SandboxHandle sb =
                    provider.create(SandboxCreateInput.defaults().withKey(key, "tenant-prune"));
            try {
                String tenant = PruneFixture.newTenant();
                fx.register(sb, tenant);
                fx.finished(tenant, "done", RunStatus.COMPLETED);
                fx.finished(tenant, "stuck", RunStatus.FAILED);
                fx.finished(tenant, ".dot", RunStatus.ABORTED);
                fx.running(tenant, "live");
                Instant cutoff = NOW.minus(JournalPruner.DEFAULT_ORPHAN_TTL);
                Map<String, Instant> seeded =
                        new LinkedHashMap<>(journals(NOW, "done", ".dot", "live"));
                seeded.putAll(journals(cutoff.minusSeconds(1), "old-orphan"));
                seeded.putAll(journals(cutoff, "young-orphan"));
                seeded.put(err("stuck"), NOW);
                seeded.put(prompt("done"), NOW);
                seeded.put(prompt("old-orphan"), cutoff.minusSeconds(1));
                seeded.put(prompt("live"), NOW);
                seeded.put("notes.txt", NOW);
                String dir = JournalNames.DEFAULT_DIR;
                seed(sb, dir, seeded);
                PruneFixture.exec(sb, "mkdir -p " + dir + "/" + ndjson("stuck") + "/inside");

                PruneResult result =
                        new JournalPruner(
                                        fx.runs,
                                        fx.instances,
                                        i -> provider.resume(i.providerSandboxId()),
                                        Clock.fixed(NOW, ZoneOffset.UTC),
                                        JournalPruner.DEFAULT_ORPHAN_TTL,
                                        JournalPruner.DEFAULT_MAX_DELETES)
                                .prune();

                assertThat(result.deleted())
                        .containsExactlyInAnyOrder("done", ".dot", "old-orphan");
                assertThat(result.kept())
                        .containsExactlyInAnyOrder(
                                new Kept("live", PruneResult.NON_TERMINAL),
                                new Kept("young-orphan", PruneResult.ORPHAN_TOO_RECENT),
                                new Kept("stuck", PruneResult.DELETE_FAILED),
                                new Kept("notes.txt", PruneResult.UNDECODABLE_NAME));
                assertThat(files(sb, dir))
                        .containsExactlyInAnyOrder(
                                ndjson("live"),
                                err("live"),
                                prompt("live"),
                                ndjson("young-orphan"),
                                err("young-orphan"),
                                ndjson("stuck"),
                                "notes.txt");
            } finally {
                sb.destroy();
            }
        } finally {
            for (ManagedSandbox m : provider.listManaged()) {
                if (key.equals(m.labels().get(SandboxLabels.KEY))) {
                    provider.destroy(m.id());
                }
            }
            assertThat(provider.listManaged())
                    .noneMatch(m -> key.equals(m.labels().get(SandboxLabels.KEY)));
            provider.close();
        }
    }
}
