package dev.agentbox.sandbox;

import dev.agentbox.platform.InstallationService;
import dev.agentbox.platform.LogText;
import dev.agentbox.platform.Transactions;
import dev.agentbox.platform.lease.HeldLease;
import dev.agentbox.platform.lease.LeaseNames;
import dev.agentbox.platform.lease.Leases;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.quota.Quota;
import dev.agentbox.quota.Slot;
import dev.agentbox.quota.TenantQuotas;
import dev.agentbox.sandbox.SandboxSpec.LocalSource;
import dev.agentbox.sandbox.SandboxSpec.SnapshotMode;
import dev.agentbox.sandbox.pool.WarmPool;
import dev.agentbox.sandbox.spi.SandboxCapabilities;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import dev.agentbox.sandbox.spi.SandboxProvider;
import dev.agentbox.sandbox.spi.UnsupportedCapabilityException;
import dev.agentbox.sandbox.store.SandboxInstance;
import dev.agentbox.sandbox.store.SandboxInstanceStore;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Ensure, for {@link SandboxService}: resume the recorded sandbox, else restore its snapshot, else
 * create and bootstrap a new one, and record the result.
 *
 * <p>Invariants: exactly one sandbox per key — the whole ensure runs under the database lease
 * {@code sandbox:<key>}, so a second concurrent ensure of the key (on this server or another
 * sharing the database) waits and then resumes what the first made; a half-made sandbox is
 * destroyed and never recorded; only a key without a record counts against the tenant's sandbox
 * quota.
 */
final class SandboxEnsure {

    /** The service's logger: an ensure's lines read with the rest of the sandbox's. */
    private static final Logger LOG = Logger.getLogger(SandboxService.class.getName());

    private final SandboxProviders providers;
    private final SandboxInstanceStore store;
    private final Leases leases;
    private final Clock clock;
    private final ManagedExecutorService executor;
    private final InstallationService installation;
    private final TenantQuotas quotas;
    private final Duration stepTimeout;
    private final Duration ensureWait;
    private final LocalSources localSources;
    private final WarmPool pool;
    private final Consumer<WarmPool.Claim> afterClaim;
    private final Transactions transactions;

    /**
     * {@code executor}, {@code installation}, {@code pool} and {@code transactions} may be null
     * outside the server. With a pool, a new sandbox is taken from it when one of its entries
     * serves the ensure's image and policy; {@code afterClaim} ends each claim whose sandbox is
     * recorded (drops its pool row, refills the pool).
     */
    SandboxEnsure(
            SandboxProviders providers,
            SandboxInstanceStore store,
            Leases leases,
            Clock clock,
            ManagedExecutorService executor,
            InstallationService installation,
            TenantQuotas quotas,
            Duration stepTimeout,
            Duration ensureWait,
            LocalSources localSources,
            WarmPool pool,
            Consumer<WarmPool.Claim> afterClaim,
            Transactions transactions) {
        this.providers = providers;
        this.store = store;
        this.leases = leases;
        this.clock = clock;
        this.executor = executor;
        this.installation = installation;
        this.quotas = quotas;
        this.stepTimeout = stepTimeout;
        this.ensureWait = ensureWait;
        this.localSources = localSources;
        this.pool = pool;
        this.afterClaim = afterClaim;
        this.transactions = transactions;
    }

    Ensured ensure(String tenant, SandboxSpec spec) {
        SandboxProvider provider =
                providers
                        .find(spec.provider())
                        .orElseThrow(
                                () ->
                                        new ProblemException(
                                                ProblemCode.INVALID_REQUEST,
                                                "provider \""
                                                        + spec.provider()
                                                        + "\" is not an enabled provider",
                                                Map.of("field", "provider"),
                                                null));
        requireNetworkPolicy(provider, spec.policy());
        // An ensure the pool serves skips the engine ping: a claimed sandbox proves itself by
        // answering, and a miss pings before it creates (requireAvailable below).
        if (!pooled(provider, spec)) {
            requireAvailable(provider);
        }
        String key = SandboxKey.of(tenant, spec, spec.image().orElse("default"));
        String label = "sandbox " + SandboxKey.shortForm(key);
        try (HeldLease lease =
                leases.acquire(LeaseNames.sandbox(key), SandboxService.LEASE_TTL, ensureWait)
                        .orElseThrow(
                                () ->
                                        new ProblemException(
                                                ProblemCode.PROVIDER_UNAVAILABLE,
                                                "Another ensure of this sandbox is still running; try again later.",
                                                Map.of(),
                                                null))) {
            Optional<SandboxInstance> recorded = store.find(tenant, key);
            if (recorded.isPresent()) {
                Optional<Ensured> reused = reuse(provider, recorded.get(), spec, label);
                if (reused.isPresent()) {
                    return reused.get();
                }
            }
            // Only a key without a record is a new sandbox for the tenant's quota. The slot is
            // released with the record's commit, before the answer: a client that deletes a
            // sandbox and creates another at once must find the first one's slot free.
            try (Slot slot = recorded.isPresent() ? Slot.NONE : reserveSandbox(tenant, key)) {
                return create(provider, tenant, key, spec, recorded, lease, slot, label);
            }
        }
    }

    /**
     * A slot of the tenant's sandbox quota for {@code key}, held until its record is stored or
     * creation failed.
     */
    Slot reserveSandbox(String tenant, String key) {
        return quotas.reserve(
                tenant,
                Quota.SANDBOXES,
                key,
                max ->
                        store.list(tenant).stream()
                                .map(SandboxInstance::key)
                                .collect(java.util.stream.Collectors.toSet()));
    }

    private Optional<Ensured> reuse(
            SandboxProvider provider, SandboxInstance instance, SandboxSpec spec, String label) {
        Optional<SandboxHandle> running = provider.resume(instance.providerSandboxId());
        if (running.isPresent()) {
            // Secrets are re-supplied on every ensure; the exec is skipped only when there
            // are none now and none were installed before (the warm-resume fast path).
            if (SandboxSecrets.any(spec.workspace()) || instance.secretsInstalled()) {
                SandboxSecrets.install(running.get(), spec.workspace());
                instance.secretsInstalled(SandboxSecrets.any(spec.workspace()));
                instance.secretNames(SandboxSecrets.names(spec.workspace()));
            }
            instance.touch(clock.instant());
            SandboxInstance stored = store.upsert(instance);
            LOG.info(label + ": resumed " + instance.providerSandboxId());
            return Optional.of(
                    new Ensured(
                            new Sandbox(stored, SandboxService.handleOf(running.get(), stored)),
                            EnsureOutcome.RESUMED));
        }
        if (spec.lifecycle().snapshot() == SnapshotMode.AFTER_SETUP
                && instance.snapshotId().isPresent()
                && provider.capabilities().snapshots()) {
            try {
                SandboxHandle restored =
                        provider.restoreSnapshot(
                                instance.snapshotId().get(),
                                inputFor(instance.key(), instance.tenant(), spec));
                try {
                    if (SandboxSecrets.any(spec.workspace())) {
                        SandboxSecrets.install(restored, spec.workspace());
                    }
                    instance.secretsInstalled(SandboxSecrets.any(spec.workspace()));
                    instance.secretNames(SandboxSecrets.names(spec.workspace()));
                    instance.replaceSandbox(restored.id(), clock.instant());
                    SandboxInstance stored = store.upsert(instance);
                    LOG.info(
                            label
                                    + ": restored "
                                    + restored.id()
                                    + " from "
                                    + instance.snapshotId().get());
                    return Optional.of(
                            new Ensured(
                                    new Sandbox(stored, SandboxService.handleOf(restored, stored)),
                                    EnsureOutcome.RESTORED));
                } catch (RuntimeException e) {
                    SandboxService.destroyQuietly(restored, label);
                    throw e;
                }
            } catch (ProblemException e) {
                if (e.code() != ProblemCode.NOT_FOUND) {
                    throw e;
                }
                LOG.info(
                        label
                                + ": snapshot "
                                + instance.snapshotId().get()
                                + " is gone; creating anew");
            }
        }
        LOG.info(
                label
                        + ": recorded sandbox "
                        + instance.providerSandboxId()
                        + " is gone; creating anew");
        return Optional.empty();
    }

    private Ensured create(
            SandboxProvider provider,
            String tenant,
            String key,
            SandboxSpec spec,
            Optional<SandboxInstance> recorded,
            HeldLease lease,
            Slot slot,
            String label) {
        long t0 = System.nanoTime();
        // A local source is checked and packed before the sandbox exists: a refused one
        // (400) leaves no container behind and nothing recorded.
        try (LocalSourceArchive archive = localArchive(spec, label)) {
            return create(provider, tenant, key, spec, recorded, lease, slot, label, archive, t0);
        }
    }

    private LocalSourceArchive localArchive(SandboxSpec spec, String label) {
        if (!(spec.workspace().source() instanceof LocalSource local)) {
            return null;
        }
        long t0 = System.nanoTime();
        LocalSourceArchive archive =
                LocalSourceArchive.pack(
                        localSources.resolve(local.path()),
                        localSources.maxBytes(),
                        localSources.maxFiles());
        LOG.info(
                label
                        + ": packed the local source "
                        + LogText.quote(local.path())
                        + ": "
                        + archive.files()
                        + " entries, "
                        + archive.bytes()
                        + " bytes in "
                        + (System.nanoTime() - t0) / 1_000_000
                        + " ms");
        return archive;
    }

    private Ensured create(
            SandboxProvider provider,
            String tenant,
            String key,
            SandboxSpec spec,
            Optional<SandboxInstance> recorded,
            HeldLease lease,
            Slot slot,
            String label,
            LocalSourceArchive archive,
            long t0) {
        Optional<WarmPool.Claim> claim = claimPooled(provider, key, spec);
        if (claim.isEmpty() && pooled(provider, spec)) {
            requireAvailable(provider);
        }
        SandboxHandle raw =
                claim.map(WarmPool.Claim::handle)
                        .orElseGet(() -> provider.create(inputFor(key, tenant, spec)));
        try {
            if (SandboxSecrets.any(spec.workspace())) {
                SandboxSecrets.install(raw, spec.workspace());
            }
            // A sandbox re-created under a recorded key keeps the environment recorded for it. A
            // pooled one was made without workspace.env: its record carries that too.
            EnvOverlay recordedEnv =
                    EnvOverlay.parse(recorded.map(SandboxInstance::envJson).orElse(null));
            EnvOverlay env =
                    claim.isPresent() ? recordedEnv.over(spec.workspace().env()) : recordedEnv;
            SecretsHandle handle = new SecretsHandle(raw, env);
            new WorkspaceBootstrap(handle, stepTimeout, executor, label)
                    .run(spec.workspace(), archive);
            String snapshotId = null;
            if (spec.lifecycle().snapshot() == SnapshotMode.AFTER_SETUP
                    && provider.capabilities().snapshots()) {
                snapshotId = raw.snapshot(Optional.of("after-setup")).id();
                LOG.info(label + ": snapshot after setup " + snapshotId);
            }
            if (lease.lost()) {
                throw new ProblemException(
                        ProblemCode.PROVIDER_UNAVAILABLE,
                        "Lost the sandbox lease during setup (database unreachable?); nothing was recorded.",
                        Map.of(),
                        null);
            }
            Instant now = clock.instant();
            SandboxInstance instance =
                    new SandboxInstance(
                            key,
                            tenant,
                            provider.name(),
                            raw.id(),
                            spec.threadId().orElse(null),
                            recorded.map(SandboxInstance::createdAt).orElse(now),
                            spec.lifecycle().keepAliveMs());
            instance.touch(now);
            instance.recordSnapshot(snapshotId);
            instance.secretsInstalled(SandboxSecrets.any(spec.workspace()));
            instance.secretNames(SandboxSecrets.names(spec.workspace()));
            instance.envJson(env.json());
            instance.describe(spec.image(), spec.policy().ports());
            Optional<String> oldSnapshot = recorded.flatMap(SandboxInstance::snapshotId);
            SandboxInstance stored = recordAndRelease(instance, slot, lease);
            oldSnapshot
                    .filter(old -> !old.equals(stored.snapshotId().orElse(null)))
                    .ifPresent(old -> SandboxService.deleteSnapshotQuietly(provider, old, label));
            claim.ifPresent(afterClaim);
            LOG.info(
                    label
                            + (claim.isPresent() ? ": took " : ": created ")
                            + raw.id()
                            + (claim.isPresent() ? " from the pool in " : " in ")
                            + (System.nanoTime() - t0) / 1_000_000
                            + " ms");
            return new Ensured(new Sandbox(stored, handle), EnsureOutcome.CREATED);
        } catch (RuntimeException e) {
            // A half-made sandbox is never left behind, and nothing was recorded for it.
            if (claim.isPresent()) {
                pool.abandon(claim.get());
            } else {
                SandboxService.destroyQuietly(raw, label);
            }
            throw e;
        }
    }

    /**
     * Stores the new sandbox's record and gives up its quota slot and its key's lease in the same
     * transaction: one commit instead of three on the path of every created sandbox, and no instant
     * at which the sandbox is counted by both its record and its slot, or by neither. A commit that
     * fails leaves the slot and the lease to expire by their TTLs (the ensure fails, and its
     * sandbox is destroyed).
     */
    private SandboxInstance recordAndRelease(SandboxInstance instance, Slot slot, HeldLease lease) {
        Supplier<SandboxInstance> work =
                () -> {
                    SandboxInstance stored = store.upsert(instance);
                    slot.close();
                    lease.close();
                    return stored;
                };
        return transactions == null ? work.get() : transactions.inOne(work);
    }

    private static void requireAvailable(SandboxProvider provider) {
        if (!provider.available()) {
            throw ProblemException.providerUnavailable(
                    "The " + provider.name() + " provider's backend is unreachable.", null);
        }
    }

    /**
     * An egress policy only where the provider confines a sandbox's network ({@code
     * networkPolicy}): a provider without it would make a sandbox with more network than was asked
     * for. Refused before the lease, the quota and the engine are touched ({@code 422
     * unsupported-capability}).
     */
    static void requireNetworkPolicy(SandboxProvider provider, SandboxPolicy policy) {
        if (policy.network() == SandboxPolicy.Network.EGRESS
                && !provider.capabilities().networkPolicy()) {
            throw new UnsupportedCapabilityException(
                    provider.name(), SandboxCapabilities.Capability.NETWORK_POLICY);
        }
    }

    /** Whether one of the warm pool's entries serves this ensure's image and policy. */
    private boolean pooled(SandboxProvider provider, SandboxSpec spec) {
        return pool != null
                && pool.entryFor(provider.name(), spec.image(), spec.policy()).isPresent();
    }

    /** A ready sandbox from the warm pool when one serves this ensure; empty on a miss. */
    private Optional<WarmPool.Claim> claimPooled(
            SandboxProvider provider, String key, SandboxSpec spec) {
        if (pool == null) {
            return Optional.empty();
        }
        return pool.entryFor(provider.name(), spec.image(), spec.policy())
                .flatMap(entry -> pool.claim(entry, key));
    }

    /**
     * The create input, labelled with this installation so orphan collection can tell its own
     * sandboxes.
     */
    private SandboxCreateInput inputFor(String key, String tenant, SandboxSpec spec) {
        SandboxCreateInput input = createInput(key, tenant, spec);
        if (installation == null) {
            return input;
        }
        return installation
                .current()
                .map(i -> input.withInstallation(i.installationId()))
                .orElse(input);
    }

    static SandboxCreateInput createInput(String key, String tenant, SandboxSpec spec) {
        SandboxPolicy policy = spec.policy();
        String requestedId =
                "ab-" + key.substring(0, 16) + "-" + UUID.randomUUID().toString().substring(0, 8);
        return new SandboxCreateInput(
                Optional.of(requestedId),
                Optional.of(key),
                Optional.of(tenant),
                spec.image(),
                spec.workspace().env(),
                policy);
    }
}
