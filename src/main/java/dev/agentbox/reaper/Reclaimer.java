package dev.agentbox.reaper;

import dev.agentbox.platform.LogText;
import dev.agentbox.platform.lease.HeldLease;
import dev.agentbox.platform.lease.LeaseNames;
import dev.agentbox.platform.lease.Leases;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.run.store.RunStore;
import dev.agentbox.sandbox.SandboxKey;
import dev.agentbox.sandbox.SandboxService;
import dev.agentbox.sandbox.spi.SandboxProvider;
import dev.agentbox.sandbox.store.SandboxInstance;
import dev.agentbox.sandbox.store.SandboxInstanceStore;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Tears down the sandbox a run was bound to. Two orderings matter:
 *
 * <ul>
 *   <li>The provider check comes before destroy or delete: a record of a provider this server does
 *       not run is refused and left alone (touching it would hand one backend's id to another, or
 *       strand a record the right server still needs).
 *   <li>Destroy, then delete the record regardless: a record pointing at nothing would make the
 *       thread's next ensure fail to resume, which is worse than a sandbox the provider holds on
 *       to. But a destroy that threw is {@link ReclaimOutcome#DESTROY_FAILED}, logged at SEVERE
 *       with the key, never reported as success: it is the one outcome where the leak the reaper
 *       exists to stop is still leaking.
 * </ul>
 *
 * A sandbox another live run uses (a thread's next run reuses its sandbox), or whose ensure is in
 * progress (its lease is held), is kept.
 */
final class Reclaimer {

    private static final Logger LOG = Logger.getLogger(Reclaimer.class.getName());
    private static final Duration LEASE_TTL = Duration.ofSeconds(30);

    /** The outcome, and for a failed destroy a message naming the sandbox. */
    public record Reclaim(ReclaimOutcome outcome, Optional<String> error) {
        static Reclaim of(ReclaimOutcome outcome) {
            return new Reclaim(outcome, Optional.empty());
        }
    }

    private final SandboxInstanceStore instances;
    private final Function<String, Optional<SandboxProvider>> providers;
    private final RunStore runs;
    private final Leases leases;

    public Reclaimer(
            SandboxInstanceStore instances,
            Function<String, Optional<SandboxProvider>> providers,
            RunStore runs,
            Leases leases) {
        this.instances = instances;
        this.providers = providers;
        this.runs = runs;
        this.leases = leases;
    }

    /**
     * Reclaims the sandbox of {@code run}. Store failures propagate (the caller records them
     * against the run).
     */
    public Reclaim reclaim(RunRecordView run) {
        if (run.sandboxKey().isEmpty()) {
            return Reclaim.of(ReclaimOutcome.NO_SANDBOX_KEY);
        }
        String key = run.sandboxKey().get();
        String label =
                "run " + LogText.quote(run.runId()) + ": sandbox " + SandboxKey.shortForm(key);
        if (runs.liveRunsUsing(run.tenant(), key, 2).stream()
                .anyMatch(r -> !r.ref().equals(run.ref()))) {
            LOG.info(label + ": another live run uses it; kept");
            return Reclaim.of(ReclaimOutcome.IN_USE);
        }
        // Under the sandbox lease an ensure cannot replace or resume the sandbox meanwhile.
        try (HeldLease lease =
                leases.acquire(LeaseNames.sandbox(key), LEASE_TTL, Duration.ZERO).orElse(null)) {
            if (lease == null) {
                LOG.info(label + ": an ensure holds it; kept");
                return Reclaim.of(ReclaimOutcome.IN_USE);
            }
            Optional<SandboxInstance> recorded = instances.find(run.tenant(), key);
            if (recorded.isEmpty()) {
                return Reclaim.of(ReclaimOutcome.NOT_FOUND);
            }
            SandboxInstance instance = recorded.get();
            Optional<SandboxProvider> provider = providers.apply(instance.provider());
            if (provider.isEmpty()) {
                LOG.warning(
                        label
                                + ": the record belongs to provider "
                                + instance.provider()
                                + ", which this server does not run; not reclaiming");
                return Reclaim.of(ReclaimOutcome.PROVIDER_MISMATCH);
            }
            RuntimeException destroyError = null;
            try {
                SandboxService.destroy(provider.get(), instance);
            } catch (RuntimeException e) {
                destroyError = e;
            }
            instances.delete(run.tenant(), key);
            if (destroyError != null) {
                String message =
                        "Reclaiming sandbox "
                                + key
                                + " ("
                                + instance.provider()
                                + " "
                                + instance.providerSandboxId()
                                + ") of run "
                                + run.runId()
                                + " failed: the destroy threw ("
                                + destroyError
                                + "); the record was deleted anyway, so the sandbox may still be running";
                LOG.log(Level.SEVERE, message, destroyError);
                return new Reclaim(ReclaimOutcome.DESTROY_FAILED, Optional.of(message));
            }
            LOG.info(label + ": destroyed " + instance.providerSandboxId());
            return Reclaim.of(ReclaimOutcome.DESTROYED);
        }
    }
}
