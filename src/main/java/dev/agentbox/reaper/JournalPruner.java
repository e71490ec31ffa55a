package dev.agentbox.reaper;

import dev.agentbox.platform.LogText;
import dev.agentbox.reaper.PruneResult.Kept;
import dev.agentbox.reaper.SandboxJournals.Listing;
import dev.agentbox.reaper.SandboxJournals.RunJournal;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunStore;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.store.SandboxInstance;
import dev.agentbox.sandbox.store.SandboxInstanceStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Deletes journals that runs left behind in their sandboxes (a run that ended while nobody read its
 * journal keeps it until pruned).
 *
 * <p>Invariant: it keeps every journal it cannot prove dead. A journal is dead when its run's
 * record is terminal (terminal is final and the log is in the database), or when there is no record
 * and the journal has not been written for {@code orphanTtl}. A record is written before its agent
 * starts, so a journal without one belongs to a run whose record was deleted or to another
 * installation; the wait guards against the sandbox's clock running behind the server's and against
 * a record whose creation is still in flight. Everything else is kept: live runs, names that stand
 * for no runId (including hashed over-long names, which cannot be inverted), runs whose lookup
 * failed, and runs whose {@code rm} failed.
 *
 * <p>Each run is looked up in the tenant of the sandbox holding the journal: a sandbox belongs to
 * one tenant, and so does its journal directory ({@link SandboxHandle#journalDirectory()}: on a
 * host shared by several tenants' sandboxes, one directory per tenant), so every journal a walk
 * lists is one of that tenant's runs or an orphan. A sandbox that cannot be opened or listed is
 * skipped; {@link #prune()} never throws. At most {@code maxDeletes} runs are deleted per call
 * (attempts count, so a call's work stays bounded too); the oldest journals go first.
 */
final class JournalPruner {

    public static final Duration DEFAULT_ORPHAN_TTL = Duration.ofHours(1);
    public static final int DEFAULT_MAX_DELETES = 200;

    /** Sandbox records walked per call: far above any real installation, but bounded. */
    public static final int SANDBOX_LIMIT = 10_000;

    private static final Logger LOG = Logger.getLogger(JournalPruner.class.getName());

    private final RunStore runs;
    private final SandboxInstanceStore instances;
    private final Function<SandboxInstance, Optional<SandboxHandle>> open;
    private final Clock clock;
    private final SandboxJournals journals;
    private final Duration orphanTtl;
    private final int maxDeletes;

    public JournalPruner(
            RunStore runs,
            SandboxInstanceStore instances,
            Function<SandboxInstance, Optional<SandboxHandle>> open,
            Clock clock,
            Duration orphanTtl,
            int maxDeletes) {
        if (orphanTtl.isNegative() || maxDeletes < 0) {
            throw new IllegalArgumentException("orphanTtl and maxDeletes must not be negative");
        }
        this.runs = runs;
        this.instances = instances;
        this.open = open;
        this.clock = clock;
        this.journals = new SandboxJournals();
        this.orphanTtl = orphanTtl;
        this.maxDeletes = maxDeletes;
    }

    /** One pass over every sandbox. Never throws. */
    public PruneResult prune() {
        Pass pass = new Pass(clock.instant().minus(orphanTtl));
        List<SandboxInstance> all;
        try {
            all = instances.listAll(SANDBOX_LIMIT);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Journal prune skipped: listing the sandboxes failed: " + e);
            return pass.result();
        }
        for (SandboxInstance instance : all) {
            try {
                pruneSandbox(instance, pass);
            } catch (RuntimeException e) {
                pass.skipped++;
                LOG.log(
                        Level.WARNING,
                        "Journal prune skipped sandbox " + instance.key() + ": " + e);
            }
        }
        PruneResult result = pass.result();
        LOG.info(
                () ->
                        "Journal prune: "
                                + all.size()
                                + " sandbox(es), "
                                + pass.skipped
                                + " skipped, "
                                + result.deleted().size()
                                + " run(s) deleted, "
                                + result.kept().size()
                                + " kept "
                                + pass.keptByReason());
        return result;
    }

    private void pruneSandbox(SandboxInstance instance, Pass pass) {
        Optional<SandboxHandle> handle = open.apply(instance);
        if (handle.isEmpty()) {
            pass.skipped++;
            LOG.fine(
                    () ->
                            "Journal prune: sandbox "
                                    + instance.key()
                                    + " is not running; its journals wait");
            return;
        }
        Listing listing = journals.list(handle.get());
        listing.undecodable().forEach(name -> pass.keep(name, PruneResult.UNDECODABLE_NAME));
        List<String> toDelete = new ArrayList<>();
        for (RunJournal journal : listing.runs()) {
            Optional<String> keep = reasonToKeep(instance.tenant(), journal, pass.orphanCutoff);
            if (keep.isPresent()) {
                pass.keep(journal.runId(), keep.get());
            } else if (pass.attempts >= maxDeletes) {
                pass.keep(journal.runId(), PruneResult.MAX_DELETES);
            } else {
                pass.attempts++;
                toDelete.add(journal.runId());
            }
        }
        Set<String> failed = journals.delete(handle.get(), toDelete);
        for (String runId : toDelete) {
            if (failed.contains(runId)) {
                pass.keep(runId, PruneResult.DELETE_FAILED);
            } else {
                pass.deleted.add(runId);
            }
        }
    }

    /** Why the run's journal must stay; empty when it is provably dead. */
    private Optional<String> reasonToKeep(String tenant, RunJournal journal, Instant orphanCutoff) {
        Optional<RunRecordView> record;
        try {
            record = runs.find(tenant, journal.runId());
        } catch (RuntimeException e) {
            LOG.log(
                    Level.WARNING,
                    "Journal prune: looking up run "
                            + LogText.quote(journal.runId())
                            + " failed: "
                            + e);
            return Optional.of(PruneResult.STORE_ERROR);
        }
        if (record.isPresent()) {
            return record.get().isTerminal()
                    ? Optional.empty()
                    : Optional.of(PruneResult.NON_TERMINAL);
        }
        return journal.newestModified().isBefore(orphanCutoff)
                ? Optional.empty()
                : Optional.of(PruneResult.ORPHAN_TOO_RECENT);
    }

    /** The mutable state of one {@link #prune()} call. */
    private static final class Pass {
        final Instant orphanCutoff;
        final List<String> deleted = new ArrayList<>();
        final List<Kept> kept = new ArrayList<>();
        int attempts;
        int skipped;

        Pass(Instant orphanCutoff) {
            this.orphanCutoff = orphanCutoff;
        }

        void keep(String runId, String reason) {
            kept.add(new Kept(runId, reason));
        }

        Map<String, Integer> keptByReason() {
            Map<String, Integer> counts = new TreeMap<>();
            kept.forEach(k -> counts.merge(k.reason(), 1, Integer::sum));
            return counts;
        }

        PruneResult result() {
            return new PruneResult(deleted, kept);
        }
    }
}
