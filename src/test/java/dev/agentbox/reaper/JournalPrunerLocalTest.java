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
import dev.agentbox.run.store.RunStore;
import dev.agentbox.sandbox.local.LocalSandboxProvider;
import dev.agentbox.sandbox.local.LocalSettings;
import dev.agentbox.sandbox.spi.JournalNames;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.store.SandboxInstance;
import dev.agentbox.testing.Slow;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Journal pruning (docs/behavior.md PJ-01..PJ-04, PJ-06) on local-provider sandboxes and the Derby
 * stores. Local sandboxes share the host and keep journals per tenant, so every test has a tenant,
 * and thus a journal directory, of its own (under this class's temporary root).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class JournalPrunerLocalTest {

    static final Instant NOW = Instant.parse("2030-06-01T12:00:00Z");
    static final Instant CUTOFF = NOW.minus(JournalPruner.DEFAULT_ORPHAN_TTL);

    private Path root;
    private LocalSandboxProvider provider;
    private PruneFixture fx;
    private final List<SandboxHandle> sandboxes = new ArrayList<>();
    private String tenant;
    private String dir;
    private SandboxHandle sb;

    @BeforeAll
    void start() throws IOException {
        root = Files.createTempDirectory("agentbox-prune-test").toAbsolutePath();
        provider =
                new LocalSandboxProvider(
                        new LocalSettings(true, root),
                        new DaemonThreads("test-prune"),
                        Clock.systemUTC());
        fx = PruneFixture.open();
    }

    @BeforeEach
    void sandbox() {
        tenant = PruneFixture.newTenant();
        sb = newSandbox(tenant);
        dir = sb.journalDirectory();
        fx.register(sb, tenant);
    }

    @AfterEach
    void destroySandboxes() {
        fx.deleteAllInstances();
        sandboxes.forEach(SandboxHandle::destroy);
        sandboxes.clear();
    }

    @AfterAll
    void stop() throws IOException {
        fx.close();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private SandboxHandle newSandbox(String ofTenant) {
        SandboxHandle h =
                provider.create(SandboxCreateInput.defaults().withKey("prune-key", ofTenant));
        sandboxes.add(h);
        return h;
    }

    private JournalPruner pruner(RunStore runs) {
        return pruner(
                runs,
                i -> provider.resume(i.providerSandboxId()),
                JournalPruner.DEFAULT_MAX_DELETES);
    }

    private JournalPruner pruner(
            RunStore runs,
            Function<SandboxInstance, Optional<SandboxHandle>> open,
            int maxDeletes) {
        return new JournalPruner(
                runs,
                fx.instances,
                open,
                Clock.fixed(NOW, ZoneOffset.UTC),
                JournalPruner.DEFAULT_ORPHAN_TTL,
                maxDeletes);
    }

    @Test
    @DisplayName(
            "PJ-01 journals of completed, failed and aborted runs are deleted (journal, err and prompt files); running and interrupted runs keep theirs")
    void terminalRunsLoseTheirJournalsLiveRunsKeepThem() {
        String weird = "weird id/ü'$(x)";
        fx.finished(tenant, "done", RunStatus.COMPLETED);
        fx.finished(tenant, "broke", RunStatus.FAILED);
        fx.finished(tenant, weird, RunStatus.ABORTED);
        fx.finished(tenant, "lone-err", RunStatus.COMPLETED);
        // a run whose agent never started: only its prompt was written
        fx.finished(tenant, "lone-prompt", RunStatus.FAILED);
        fx.running(tenant, "live");
        fx.interrupted(tenant, "paused");
        Map<String, Instant> seeded = journals(NOW, "done", "broke", weird, "live", "paused");
        seeded.put(err("lone-err"), NOW);
        seeded.put(prompt("done"), NOW);
        seeded.put(prompt(weird), NOW);
        seeded.put(prompt("live"), NOW);
        seeded.put(prompt("lone-prompt"), NOW);
        seed(sb, dir, seeded);

        PruneResult result = pruner(fx.runs).prune();

        assertThat(result.deleted())
                .containsExactlyInAnyOrder("done", "broke", weird, "lone-err", "lone-prompt");
        assertThat(result.kept())
                .containsExactlyInAnyOrder(
                        new Kept("live", PruneResult.NON_TERMINAL),
                        new Kept("paused", PruneResult.NON_TERMINAL));
        assertThat(files(sb, dir))
                .containsExactlyInAnyOrder(
                        ndjson("live"),
                        err("live"),
                        prompt("live"),
                        ndjson("paused"),
                        err("paused"));
    }

    @Test
    @DisplayName("a runId starting with a dot has a dot-file journal, and it is pruned too")
    void dotFileJournalsAreSeen() {
        fx.finished(tenant, ".hidden", RunStatus.COMPLETED);
        seed(sb, dir, journals(NOW, ".hidden"));
        assertThat(files(sb, dir)).containsExactlyInAnyOrder(ndjson(".hidden"), err(".hidden"));

        assertThat(pruner(fx.runs).prune().deleted()).containsExactly(".hidden");
        assertThat(files(sb, dir)).isEmpty();
    }

    @Test
    @DisplayName("PJ-02 pruning again finds nothing to list and reports no failures")
    void aSecondPruneFindsNothing() {
        fx.finished(tenant, "a", RunStatus.COMPLETED);
        fx.finished(tenant, "b", RunStatus.FAILED);
        seed(sb, dir, journals(NOW, "a", "b"));
        assertThat(pruner(fx.runs).prune().deleted()).containsExactlyInAnyOrder("a", "b");

        PruneResult again = pruner(fx.runs).prune();

        assertThat(again.deleted()).isEmpty();
        assertThat(again.kept()).isEmpty();
        assertThat(files(sb, dir)).isEmpty();
    }

    @Test
    @DisplayName(
            "a sandbox that is gone and one whose opening fails are skipped; the others are pruned")
    void unreachableSandboxesAreSkipped() {
        SandboxHandle gone = newSandbox(tenant);
        fx.register(gone, tenant);
        gone.destroy();
        SandboxHandle broken = newSandbox(tenant);
        SandboxInstance brokenRecord = fx.register(broken, tenant);
        fx.finished(tenant, "done", RunStatus.COMPLETED);
        seed(sb, dir, journals(NOW, "done"));

        PruneResult result =
                pruner(
                                fx.runs,
                                i -> {
                                    if (i.key().equals(brokenRecord.key())) {
                                        throw new IllegalStateException("provider unreachable");
                                    }
                                    return provider.resume(i.providerSandboxId());
                                },
                                JournalPruner.DEFAULT_MAX_DELETES)
                        .prune();

        assertThat(result.deleted()).containsExactly("done");
        assertThat(result.kept()).isEmpty();
    }

    @Test
    @DisplayName("a sandbox without a journal directory has nothing to prune")
    void missingDirectoryIsEmpty() {
        fx.finished(tenant, "done", RunStatus.COMPLETED);

        PruneResult result = pruner(fx.runs).prune();

        assertThat(result.deleted()).isEmpty();
        assertThat(result.kept()).isEmpty();
    }

    @Test
    @DisplayName(
            "PJ-03 names that stand for no runId are kept under their file name, without a store lookup")
    void undecodableNamesAreKeptWithoutLookup() {
        String hashed = JournalNames.encode("x".repeat(300)) + JournalNames.JOURNAL_SUFFIX;
        List<String> foreign =
                List.of("notes.txt", "UPPER_ZZ.ndjson", "_41.err", "a b.ndjson", hashed);
        Map<String, Instant> seeded = new LinkedHashMap<>();
        foreign.forEach(name -> seeded.put(name, NOW.minusSeconds(86_400)));
        seeded.putAll(journals(NOW, "known"));
        fx.finished(tenant, "known", RunStatus.COMPLETED);
        seed(sb, dir, seeded);
        AtomicInteger finds = new AtomicInteger();

        PruneResult result = pruner(PruneFixture.counting(fx.runs, finds)).prune();

        assertThat(result.kept())
                .extracting(Kept::runId)
                .containsExactlyInAnyOrderElementsOf(foreign);
        assertThat(result.kept())
                .extracting(Kept::reason)
                .containsOnly(PruneResult.UNDECODABLE_NAME);
        assertThat(result.deleted()).containsExactly("known");
        assertThat(finds).as("one lookup: the decodable run's").hasValue(1);
        assertThat(files(sb, dir)).containsExactlyInAnyOrderElementsOf(foreign);
    }

    @Test
    @DisplayName(
            "PJ-04 orphans (no record) are deleted once their newest file is older than the TTL; at the cutoff or younger they wait")
    void orphansWaitForTheTtl() {
        Map<String, Instant> seeded = new LinkedHashMap<>();
        seeded.putAll(journals(CUTOFF.minusSeconds(1), "old"));
        seeded.putAll(journals(CUTOFF, "at-cutoff"));
        seeded.putAll(journals(NOW, "fresh"));
        seeded.put(ndjson("half"), CUTOFF.minusSeconds(7200));
        seeded.put(err("half"), CUTOFF.plusSeconds(1)); // the newest file decides
        seed(sb, dir, seeded);

        PruneResult result = pruner(fx.runs).prune();

        assertThat(result.deleted()).containsExactly("old");
        assertThat(result.kept())
                .containsExactlyInAnyOrder(
                        new Kept("at-cutoff", PruneResult.ORPHAN_TOO_RECENT),
                        new Kept("fresh", PruneResult.ORPHAN_TOO_RECENT),
                        new Kept("half", PruneResult.ORPHAN_TOO_RECENT));
        assertThat(files(sb, dir)).doesNotContain(ndjson("old"), err("old")).hasSize(6);
    }

    @Test
    @DisplayName(
            "PJ-06 a failing store lookup keeps that run's journal as store-error; other runs are still pruned")
    void storeErrorKeepsTheJournal() {
        fx.finished(tenant, "unlucky", RunStatus.COMPLETED);
        fx.finished(tenant, "lucky", RunStatus.COMPLETED);
        seed(sb, dir, journals(NOW, "unlucky", "lucky"));

        PruneResult result = pruner(PruneFixture.failingFor(fx.runs, "unlucky")).prune();

        assertThat(result.deleted()).containsExactly("lucky");
        assertThat(result.kept()).containsExactly(new Kept("unlucky", PruneResult.STORE_ERROR));
        assertThat(files(sb, dir)).containsExactlyInAnyOrder(ndjson("unlucky"), err("unlucky"));
    }

    @Test
    @DisplayName(
            "PJ-06 an rm that fails keeps the run as delete-failed; the other runs of the same batch are deleted")
    void failedRmIsReported() {
        fx.finished(tenant, "stuck", RunStatus.COMPLETED);
        fx.finished(tenant, "fine", RunStatus.COMPLETED);
        Map<String, Instant> seeded = journals(NOW, "fine");
        seeded.put(err("stuck"), NOW);
        seed(sb, dir, seeded);
        // a directory where the journal should be: rm -f refuses it, whoever runs it (root
        // included)
        PruneFixture.exec(sb, "mkdir -p '" + dir + "/" + ndjson("stuck") + "/inside'");

        PruneResult result = pruner(fx.runs).prune();

        assertThat(result.deleted()).containsExactly("fine");
        assertThat(result.kept()).containsExactly(new Kept("stuck", PruneResult.DELETE_FAILED));
        assertThat(files(sb, dir)).containsExactly(ndjson("stuck"));
    }

    @Test
    @DisplayName(
            "PJ-06 of 205 terminal runs one call deletes 200, oldest first, and keeps the 5 youngest as max-deletes")
    @Slow
    void deletionsPerCallAreBounded() {
        Map<String, Instant> seeded = new LinkedHashMap<>();
        List<String> all = new ArrayList<>();
        for (int i = 0; i < 205; i++) {
            String runId = String.format("bulk-%03d", i);
            all.add(runId);
            fx.finished(tenant, runId, RunStatus.COMPLETED);
            seeded.putAll(journals(NOW.minusSeconds(10_000 - i), runId));
        }
        seed(sb, dir, seeded);

        PruneResult result = pruner(fx.runs).prune();

        assertThat(result.deleted())
                .hasSize(200)
                .containsExactlyInAnyOrderElementsOf(all.subList(0, 200));
        assertThat(result.kept())
                .containsExactlyElementsOf(
                        all.subList(200, 205).stream()
                                .map(r -> new Kept(r, PruneResult.MAX_DELETES))
                                .toList());
        assertThat(files(sb, dir)).hasSize(10);
        assertThat(pruner(fx.runs).prune().deleted())
                .containsExactlyInAnyOrderElementsOf(all.subList(200, 205));
        assertThat(files(sb, dir)).isEmpty();
    }

    @Test
    @DisplayName(
            "a walk of one tenant's local sandbox lists only that tenant's journal directory: another tenant's journal of the same runId, long unwritten, is never looked up nor deleted")
    void anotherTenantsJournalIsNeverSeenByThisTenantsWalk() {
        String other = PruneFixture.newTenant();
        SandboxHandle othersSandbox = newSandbox(other);
        SandboxInstance othersRecord = fx.register(othersSandbox, other);
        String othersDir = othersSandbox.journalDirectory();
        fx.finished(tenant, "shared", RunStatus.COMPLETED);
        fx.running(other, "shared");
        seed(sb, dir, journals(NOW, "shared"));
        // old enough to be an orphan for any tenant that has no record of these runs
        seed(
                othersSandbox,
                othersDir,
                journals(CUTOFF.minusSeconds(3600), "shared", "others-only"));
        AtomicInteger finds = new AtomicInteger();

        PruneResult result =
                pruner(
                                PruneFixture.counting(fx.runs, finds),
                                i ->
                                        i.key().equals(othersRecord.key())
                                                ? Optional.empty()
                                                : provider.resume(i.providerSandboxId()),
                                JournalPruner.DEFAULT_MAX_DELETES)
                        .prune();

        assertThat(othersDir).isNotEqualTo(dir);
        assertThat(result.deleted()).containsExactly("shared");
        assertThat(result.kept()).isEmpty();
        assertThat(finds).as("one lookup: this tenant's own run").hasValue(1);
        assertThat(files(sb, dir)).isEmpty();
        assertThat(files(othersSandbox, othersDir))
                .containsExactlyInAnyOrder(
                        ndjson("shared"), err("shared"), ndjson("others-only"), err("others-only"));
    }
}
