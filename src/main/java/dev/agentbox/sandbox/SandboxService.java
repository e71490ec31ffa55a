package dev.agentbox.sandbox;

import dev.agentbox.platform.CanonicalJson;
import dev.agentbox.platform.InstallationService;
import dev.agentbox.platform.PageCursor;
import dev.agentbox.platform.Transactions;
import dev.agentbox.platform.lease.HeldLease;
import dev.agentbox.platform.lease.LeaseNames;
import dev.agentbox.platform.lease.Leases;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.quota.Slot;
import dev.agentbox.quota.TenantQuotas;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxProvider;
import dev.agentbox.sandbox.store.ConcurrentWrites;
import dev.agentbox.sandbox.store.SandboxInstance;
import dev.agentbox.sandbox.store.SandboxInstanceStore;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Sandboxes as a service: ensure (resume running → restore snapshot → create + bootstrap, done by
 * {@link SandboxEnsure}), lookup scoped to the caller's tenant, open, touch, delete, snapshot, fork
 * and idle expiry.
 *
 * <p>Exactly one sandbox per key: ensure runs under the database lease {@code sandbox:<key>}, so
 * two concurrent ensures of one key — on one server or on two sharing the database — make one
 * sandbox; the second waits for the lease and then resumes what the first made.
 */
@ApplicationScoped
public class SandboxService {

    private static final Logger LOG = Logger.getLogger(SandboxService.class.getName());
    static final Duration LEASE_TTL = Duration.ofSeconds(30);
    private static final Duration TOUCH_EVERY = Duration.ofSeconds(10);

    @Inject SandboxProviders providers;

    @Inject SandboxInstanceStore store;

    @Inject Leases leases;

    @Inject Clock clock;

    @Resource ManagedExecutorService executor;

    @Inject Transactions transactions;

    @Inject InstallationService installation;

    @Inject TenantQuotas quotas;

    @Inject
    @ConfigProperty(name = "agentbox.bootstrap.step-timeout-ms")
    long stepTimeoutMs;

    @Inject
    @ConfigProperty(name = "agentbox.sandbox.ensure-wait-ms")
    long ensureWaitMs;

    @Inject
    @ConfigProperty(name = "agentbox.sandbox.keep-alive-ms")
    long defaultKeepAliveMs;

    @Inject org.eclipse.microprofile.config.Config config;

    /** The warm pool; null outside the server. */
    @Inject SandboxPool pool;

    /** Read once: the allowlist and ceilings do not change while the server runs. */
    private volatile EnsureRules rules;

    /** Read once, like {@link #rules}. */
    private volatile LocalSources localSources;

    protected SandboxService() {}

    /**
     * For use outside the server (tests, benchmarks): open, touch, delete and idle expiry work;
     * ensure has no executor.
     */
    public SandboxService(
            SandboxProviders providers, SandboxInstanceStore store, Leases leases, Clock clock) {
        this.providers = providers;
        this.store = store;
        this.leases = leases;
        this.clock = clock;
        this.defaultKeepAliveMs = 1_800_000;
        this.quotas = TenantQuotas.unlimited();
    }

    /**
     * The parser of ensure bodies with this server's defaults (for {@code POST /sandboxes} and
     * runs).
     */
    public SandboxSpecParser specParser() {
        EnsureRules r = rules;
        if (r == null) {
            r = config == null ? EnsureRules.defaults() : EnsureRules.fromConfig(config);
            rules = r;
        }
        return new SandboxSpecParser(defaultKeepAliveMs, localSources(), r);
    }

    /**
     * {@code agentbox.sources.local.*}; outside the server (no config) local sources are disabled.
     */
    LocalSources localSources() {
        LocalSources l = localSources;
        if (l == null) {
            l = config == null ? LocalSources.disabled() : LocalSources.fromConfig(config);
            localSources = l;
        }
        return l;
    }

    public Ensured ensure(String tenant, SandboxSpec spec) {
        return ensurer().ensure(tenant, spec);
    }

    /**
     * The ensure of this service, made from its current fields (the server injects them; the
     * outside constructor sets them).
     */
    private SandboxEnsure ensurer() {
        return new SandboxEnsure(
                providers,
                store,
                leases,
                clock,
                executor,
                installation,
                quotas,
                Duration.ofMillis(stepTimeoutMs),
                Duration.ofMillis(ensureWaitMs),
                localSources(),
                pool == null ? null : pool.pool(),
                pool == null ? c -> {} : pool::claimed,
                transactions);
    }

    /**
     * The tenant's sandbox with a live handle; {@code 404} when unknown, another tenant's, or gone.
     */
    public Sandbox open(String tenant, String key) {
        SandboxInstance instance = find(tenant, key);
        SandboxProvider provider = providerOf(instance);
        SandboxHandle raw =
                provider.resume(instance.providerSandboxId())
                        .orElseThrow(
                                () ->
                                        ProblemException.notFound(
                                                "Sandbox "
                                                        + key
                                                        + " is no longer running; ensure it again."));
        Instant now = clock.instant();
        if (instance.lastUsedAt().plus(TOUCH_EVERY).isBefore(now)) {
            instance.touch(now);
            instance = touched(instance);
        }
        return new Sandbox(instance, handleOf(raw, instance));
    }

    /** The handle through which commands see the sandbox's secrets and recorded environment. */
    static SecretsHandle handleOf(SandboxHandle raw, SandboxInstance instance) {
        return new SecretsHandle(raw, EnvOverlay.parse(instance.envJson()));
    }

    /**
     * Sets or removes environment variables and secrets for every later command of the sandbox,
     * through any server (see {@code PATCH /sandboxes/{key}/env}). {@code env} is recorded with the
     * sandbox ({@link EnvOverlay}); {@code secrets} are merged into the sandbox's tmpfs secrets
     * file only ({@link SandboxSecrets}), never recorded. An empty value removes the variable or
     * secret.
     *
     * <p>Runs under the sandbox lease, like an ensure: two patches (or a patch and an ensure) do
     * not interleave their read-merge-write of the record or of the secrets file. Secrets need the
     * sandbox running (else {@code 404}); a patch of {@code env} alone only updates the record. The
     * key does not change.
     */
    public void patchEnv(
            String tenant,
            String key,
            Map<String, Optional<String>> env,
            Map<String, Optional<String>> secrets) {
        find(tenant, key); // 404 before the lease for another tenant's or an unknown key
        try (HeldLease lease =
                leases.acquire(LeaseNames.sandbox(key), LEASE_TTL, Duration.ofMillis(ensureWaitMs))
                        .orElseThrow(
                                () ->
                                        new ProblemException(
                                                ProblemCode.PROVIDER_UNAVAILABLE,
                                                "Another ensure or change of this sandbox is still running; try again later.",
                                                Map.of(),
                                                null))) {
            SandboxInstance instance = find(tenant, key);
            if (!secrets.isEmpty()) {
                SandboxProvider provider = providerOf(instance);
                SandboxHandle raw =
                        provider.resume(instance.providerSandboxId())
                                .orElseThrow(
                                        () ->
                                                ProblemException.notFound(
                                                        "Sandbox "
                                                                + key
                                                                + " is no longer running; ensure it again."));
                instance.secretsInstalled(SandboxSecrets.merge(raw, secrets));
                instance.secretNames(SandboxSecrets.patched(instance.secretNames(), secrets));
            }
            if (!env.isEmpty()) {
                instance.envJson(EnvOverlay.parse(instance.envJson()).with(env).json());
            }
            instance.touch(clock.instant());
            store.upsert(instance);
            LOG.info(
                    "sandbox "
                            + SandboxKey.shortForm(key)
                            + ": environment changed ("
                            + env.size()
                            + " variables, "
                            + secrets.size()
                            + " secrets)");
        }
    }

    /**
     * Marks the sandbox used now, so idle expiry leaves it alone (a run's driver calls this while
     * its agent works: the agent uses the sandbox without going through the API). Quiet when the
     * record is gone.
     */
    public void touch(String tenant, String key) {
        store.find(tenant, key)
                .ifPresent(
                        instance -> {
                            instance.touch(clock.instant());
                            touched(instance);
                        });
    }

    /**
     * Stores a touched record. Concurrent requests on one sandbox touch it at the same moment; the
     * loser's write fails its version check (its copy is stale) — the record was marked used by the
     * winner, which is all a touch is for, so that is not an error (it was a 500).
     */
    private SandboxInstance touched(SandboxInstance instance) {
        try {
            return store.upsert(instance);
        } catch (RuntimeException e) {
            if (!ConcurrentWrites.lost(e)) {
                throw e;
            }
            return instance;
        }
    }

    /**
     * Whether this server has the provider of sandbox {@code key} of {@code tenant} enabled. A
     * server without it must leave the sandbox's runs to one that has it (servers of one database
     * may enable different providers, e.g. during a rollout): taking such a run over could only
     * fail it. A sandbox without a record passes: whoever opens it finds it gone.
     */
    public boolean providerEnabledHere(String tenant, String key) {
        return store.find(tenant, key)
                .map(i -> providers.find(i.provider()).isPresent())
                .orElse(true);
    }

    public SandboxInstance find(String tenant, String key) {
        return store.find(tenant, key)
                .orElseThrow(() -> ProblemException.notFound("No sandbox " + key));
    }

    /**
     * The tenant's sandboxes, oldest first, after {@code after} when given, at most {@code limit}.
     */
    public List<SandboxInstance> list(String tenant, Optional<PageCursor> after, int limit) {
        return store.page(tenant, after, limit);
    }

    /** Destroys the sandbox (and its snapshot) and deletes the record. */
    public void delete(String tenant, String key) {
        SandboxInstance instance = find(tenant, key);
        SandboxProvider provider = providerOf(instance);
        destroy(provider, instance);
        store.delete(tenant, key);
        LOG.info(
                "sandbox "
                        + SandboxKey.shortForm(key)
                        + ": destroyed "
                        + instance.providerSandboxId());
    }

    /** Captures the sandbox's filesystem and records it as the sandbox's latest snapshot. */
    public String snapshot(String tenant, String key) {
        Sandbox sandbox = open(tenant, key);
        String id = sandbox.handle().snapshot(Optional.of("manual")).id();
        SandboxInstance instance = sandbox.instance();
        Optional<String> old = instance.snapshotId();
        instance.recordSnapshot(id);
        store.upsert(instance);
        old.ifPresent(
                o ->
                        deleteSnapshotQuietly(
                                providerOf(instance), o, "sandbox " + SandboxKey.shortForm(key)));
        return id;
    }

    /** A new sandbox (with its own key and record) branched from the current state of this one. */
    public Ensured fork(String tenant, String key) {
        Sandbox sandbox = open(tenant, key);
        String forkKey = CanonicalJson.sha256Hex(key + "/fork/" + UUID.randomUUID());
        try (Slot slot = ensurer().reserveSandbox(tenant, forkKey)) {
            SandboxHandle forked = sandbox.handle().fork();
            SandboxInstance source = sandbox.instance();
            Instant now = clock.instant();
            SandboxInstance instance =
                    new SandboxInstance(
                            forkKey,
                            tenant,
                            source.provider(),
                            forked.id(),
                            source.threadId().orElse(null),
                            now,
                            source.keepAliveMs());
            // The branch starts with the source's recorded environment (its secrets file lives
            // on the source's tmpfs and is not carried over).
            instance.envJson(source.envJson());
            instance.describe(source.image(), source.ports());
            try {
                return new Ensured(
                        new Sandbox(store.upsert(instance), handleOf(forked, instance)),
                        EnsureOutcome.CREATED);
            } catch (RuntimeException e) {
                destroyQuietly(forked, "fork of " + SandboxKey.shortForm(key));
                throw e;
            }
        }
    }

    /**
     * Destroys sandboxes unused for longer than their keep-alive and deletes their records. Each
     * one is taken under its sandbox lease without waiting (an ensure in progress wins) and
     * re-checked under it, so a sandbox resumed meanwhile is kept.
     *
     * @return how many were destroyed
     */
    public int expireIdle(int limit) {
        int expired = 0;
        for (SandboxInstance candidate : store.listIdle(clock.instant(), limit)) {
            String label = "sandbox " + SandboxKey.shortForm(candidate.key());
            try (HeldLease lease =
                    leases.acquire(LeaseNames.sandbox(candidate.key()), LEASE_TTL, Duration.ZERO)
                            .orElse(null)) {
                if (lease == null) {
                    continue;
                }
                Optional<SandboxInstance> current = store.find(candidate.tenant(), candidate.key());
                if (current.isEmpty() || !current.get().idleAt(clock.instant())) {
                    continue;
                }
                SandboxProvider provider = providerOf(current.get());
                destroy(provider, current.get());
                store.delete(candidate.tenant(), candidate.key());
                LOG.info(
                        label
                                + ": idle since "
                                + current.get().lastUsedAt()
                                + ", destroyed "
                                + current.get().providerSandboxId());
                expired++;
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, label + ": idle expiry failed: " + e);
            }
        }
        return expired;
    }

    private SandboxProvider providerOf(SandboxInstance instance) {
        return providers
                .find(instance.provider())
                .orElseThrow(
                        () ->
                                ProblemException.providerUnavailable(
                                        "Provider \""
                                                + instance.provider()
                                                + "\" of this sandbox is not enabled on this server.",
                                        null));
    }

    static void destroyQuietly(SandboxHandle handle, String label) {
        try {
            handle.destroy();
        } catch (RuntimeException e) {
            LOG.log(
                    Level.SEVERE,
                    label + ": could not destroy half-made sandbox " + handle.id(),
                    e);
        }
    }

    /**
     * Destroys the recorded sandbox through {@code provider}, then its snapshot (a snapshot that
     * cannot be deleted is only logged: the sandbox is what runs and costs). A failed destroy
     * throws, before anything else; the record is the caller's business.
     */
    public static void destroy(SandboxProvider provider, SandboxInstance instance) {
        provider.destroy(instance.providerSandboxId());
        instance.snapshotId()
                .ifPresent(
                        s ->
                                deleteSnapshotQuietly(
                                        provider,
                                        s,
                                        "sandbox " + SandboxKey.shortForm(instance.key())));
    }

    static void deleteSnapshotQuietly(SandboxProvider provider, String snapshotId, String label) {
        try {
            provider.deleteSnapshot(snapshotId);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, label + ": could not delete snapshot " + snapshotId + ": " + e);
        }
    }
}
