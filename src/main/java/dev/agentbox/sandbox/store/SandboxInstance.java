package dev.agentbox.sandbox.store;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Lob;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The record of a sandbox that agentbox made: which provider sandbox stands behind a sandbox key.
 * The key already hashes the tenant, so it is unique across tenants; the tenant is stored too so
 * that every lookup can be scoped to the caller.
 *
 * <p>Never holds a secret: secrets live only inside the running sandbox.
 */
@Entity
@Table(name = "AB_SANDBOX_INSTANCE")
public class SandboxInstance {

    @Id
    @Column(name = "SANDBOX_KEY", length = 64)
    private String key;

    @Column(name = "TENANT", nullable = false, length = 128)
    private String tenant;

    @Column(name = "PROVIDER", nullable = false, length = 64)
    private String provider;

    @Column(name = "PROVIDER_SANDBOX_ID", nullable = false, length = 255)
    private String providerSandboxId;

    @Column(name = "THREAD_ID", length = 255)
    private String threadId;

    @Column(name = "SNAPSHOT_ID", length = 255)
    private String snapshotId;

    @Column(name = "CREATED_AT", nullable = false)
    private Instant createdAt;

    @Column(name = "LAST_USED_AT", nullable = false)
    private Instant lastUsedAt;

    @Column(name = "KEEP_ALIVE_MS", nullable = false)
    private long keepAliveMs;

    /**
     * Whether a secrets file was installed (never the secrets themselves): an ensure without
     * secrets then removes it.
     */
    @Column(name = "SECRETS_INSTALLED")
    private boolean secretsInstalled;

    /**
     * The names of the secrets installed, never a value: {@code {"brokered":[…],"plain":[…]}}, each
     * sorted; null when none or recorded before names were. Written by the server at each ensure
     * and secrets patch, never read back from the sandbox, which may rewrite its own files.
     */
    @Lob
    @Column(name = "SECRET_NAMES")
    private String secretNames;

    /**
     * The environment set with {@code PATCH /sandboxes/{key}/env} (never a secret): a JSON object
     * of name to value, {@code null} for a removed variable; null when none was set. See {@code
     * EnvOverlay}.
     */
    @Lob
    @Column(name = "ENV_JSON")
    private String envJson;

    /** The image the ensure asked for; null: the provider's default. Shown, never used to run. */
    @Column(name = "IMAGE", length = 255)
    private String image;

    /** The ports published on the host, comma-separated in ascending order; null when none. */
    @Column(name = "PORTS", length = 512)
    private String ports;

    @Version
    @Column(name = "VERSION")
    private long version;

    protected SandboxInstance() {}

    public SandboxInstance(
            String key,
            String tenant,
            String provider,
            String providerSandboxId,
            String threadId,
            Instant createdAt,
            long keepAliveMs) {
        this.key = Objects.requireNonNull(key);
        this.tenant = Objects.requireNonNull(tenant);
        this.provider = Objects.requireNonNull(provider);
        this.providerSandboxId = Objects.requireNonNull(providerSandboxId);
        this.threadId = threadId;
        this.createdAt = Objects.requireNonNull(createdAt);
        this.lastUsedAt = createdAt;
        this.keepAliveMs = keepAliveMs;
    }

    /** A record as stored, read by the store without JPA ({@link JpaSandboxInstanceStore#find}). */
    static SandboxInstance restore(
            String key,
            String tenant,
            String provider,
            String providerSandboxId,
            String threadId,
            String snapshotId,
            Instant createdAt,
            Instant lastUsedAt,
            long keepAliveMs,
            boolean secretsInstalled,
            String secretNames,
            String envJson,
            String image,
            String ports,
            long version) {
        SandboxInstance i =
                new SandboxInstance(
                        key, tenant, provider, providerSandboxId, threadId, createdAt, keepAliveMs);
        i.snapshotId = snapshotId;
        i.lastUsedAt = Objects.requireNonNull(lastUsedAt);
        i.secretsInstalled = secretsInstalled;
        i.secretNames = secretNames;
        i.envJson = envJson;
        i.image = image;
        i.ports = ports;
        i.version = version;
        return i;
    }

    public String key() {
        return key;
    }

    public String tenant() {
        return tenant;
    }

    public String provider() {
        return provider;
    }

    public String providerSandboxId() {
        return providerSandboxId;
    }

    public Optional<String> threadId() {
        return Optional.ofNullable(threadId);
    }

    public Optional<String> snapshotId() {
        return Optional.ofNullable(snapshotId);
    }

    public Instant createdAt() {
        return createdAt;
    }

    public Instant lastUsedAt() {
        return lastUsedAt;
    }

    public long keepAliveMs() {
        return keepAliveMs;
    }

    public long version() {
        return version;
    }

    /** Points the record at a new provider sandbox (after the old one was gone). */
    public void replaceSandbox(String providerSandboxId, Instant now) {
        this.providerSandboxId = Objects.requireNonNull(providerSandboxId);
        this.lastUsedAt = now;
    }

    /**
     * Takes over the mutable state of {@code other} (same key): sandbox, snapshot, use, keep-alive.
     */
    void copyStateFrom(SandboxInstance other) {
        this.providerSandboxId = other.providerSandboxId;
        this.snapshotId = other.snapshotId;
        this.lastUsedAt = other.lastUsedAt;
        this.keepAliveMs = other.keepAliveMs;
        this.secretsInstalled = other.secretsInstalled;
        this.secretNames = other.secretNames;
        this.envJson = other.envJson;
        this.image = other.image;
        this.ports = other.ports;
    }

    /**
     * Records what the sandbox was made from, for lists and consoles: the image asked for (empty:
     * the provider's default) and the ports published on the host.
     */
    public void describe(Optional<String> image, Collection<Integer> ports) {
        this.image = image.orElse(null);
        this.ports =
                ports.isEmpty()
                        ? null
                        : ports.stream()
                                .sorted()
                                .distinct()
                                .map(String::valueOf)
                                .collect(Collectors.joining(","));
    }

    /** The image the ensure asked for; empty: the provider's default. */
    public Optional<String> image() {
        return Optional.ofNullable(image);
    }

    /** The ports published on the host, ascending; empty when none. */
    public List<Integer> ports() {
        if (ports == null || ports.isEmpty()) {
            return List.of();
        }
        return Arrays.stream(ports.split(",")).map(Integer::valueOf).toList();
    }

    /** The recorded environment overlay as JSON; null when none was set. */
    public String envJson() {
        return envJson;
    }

    public void envJson(String json) {
        this.envJson = json;
    }

    public boolean secretsInstalled() {
        return secretsInstalled;
    }

    public void secretsInstalled(boolean installed) {
        this.secretsInstalled = installed;
    }

    /** The names of the installed secrets; empty when none are known. */
    public SecretNames secretNames() {
        return SecretNames.parse(secretNames);
    }

    /**
     * Records the names of the installed secrets; whether a secrets file is installed stays {@link
     * #secretsInstalled(boolean)}'s (a record from before names were kept knows only that).
     */
    public void secretNames(SecretNames names) {
        this.secretNames = names.json();
    }

    public void recordSnapshot(String snapshotId) {
        this.snapshotId = snapshotId;
    }

    public void touch(Instant now) {
        if (now.isAfter(lastUsedAt)) {
            lastUsedAt = now;
        }
    }

    /** Whether the sandbox has been idle for longer than its keep-alive at {@code now}. */
    public boolean idleAt(Instant now) {
        return lastUsedAt.plusMillis(keepAliveMs).isBefore(now);
    }
}
