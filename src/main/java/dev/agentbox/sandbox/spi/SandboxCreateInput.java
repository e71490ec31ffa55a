package dev.agentbox.sandbox.spi;

import java.util.Map;
import java.util.Optional;

/**
 * What to make. {@code requestedId}: the id the caller wants (the sandbox service passes the
 * compound key so the sandbox is findable from run context); providers derive their native name
 * from it. {@code image}: overrides the provider's default image. {@code key}/{@code tenant} become
 * labels. {@code env} is the sandbox environment every command sees (never secrets: those are the
 * sandbox service's business). {@code installation} becomes the {@link SandboxLabels#INSTALLATION}
 * label. {@code pool} marks a sandbox made ahead of demand for the warm pool ({@link
 * SandboxLabels#POOL}): such a sandbox has no key, tenant or env.
 */
public record SandboxCreateInput(
        Optional<String> requestedId,
        Optional<String> key,
        Optional<String> tenant,
        Optional<String> image,
        Map<String, String> env,
        SandboxPolicy policy,
        Optional<String> installation,
        Optional<String> pool) {

    public SandboxCreateInput(
            Optional<String> requestedId,
            Optional<String> key,
            Optional<String> tenant,
            Optional<String> image,
            Map<String, String> env,
            SandboxPolicy policy) {
        this(requestedId, key, tenant, image, env, policy, Optional.empty(), Optional.empty());
    }

    public SandboxCreateInput {
        requestedId = requestedId == null ? Optional.empty() : requestedId;
        key = key == null ? Optional.empty() : key;
        tenant = tenant == null ? Optional.empty() : tenant;
        image = image == null ? Optional.empty() : image;
        env = env == null ? Map.of() : Map.copyOf(env);
        policy = policy == null ? SandboxPolicy.defaults() : policy;
        installation = installation == null ? Optional.empty() : installation;
        pool = pool == null ? Optional.empty() : pool;
    }

    /** Nothing requested: a random id, the default image, no env, default policy. */
    public static SandboxCreateInput defaults() {
        return new SandboxCreateInput(
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Map.of(),
                null);
    }

    public SandboxCreateInput withRequestedId(String id) {
        return new SandboxCreateInput(
                Optional.of(id), key, tenant, image, env, policy, installation, pool);
    }

    public SandboxCreateInput withKey(String k, String t) {
        return new SandboxCreateInput(
                requestedId,
                Optional.of(k),
                Optional.of(t),
                image,
                env,
                policy,
                installation,
                pool);
    }

    public SandboxCreateInput withImage(String i) {
        return new SandboxCreateInput(
                requestedId, key, tenant, Optional.of(i), env, policy, installation, pool);
    }

    public SandboxCreateInput withEnv(Map<String, String> e) {
        return new SandboxCreateInput(
                requestedId, key, tenant, image, e, policy, installation, pool);
    }

    public SandboxCreateInput withPolicy(SandboxPolicy p) {
        return new SandboxCreateInput(requestedId, key, tenant, image, env, p, installation, pool);
    }

    public SandboxCreateInput withInstallation(String id) {
        return new SandboxCreateInput(
                requestedId, key, tenant, image, env, policy, Optional.of(id), pool);
    }

    public SandboxCreateInput withPool(String poolKey) {
        return new SandboxCreateInput(
                requestedId, key, tenant, image, env, policy, installation, Optional.of(poolKey));
    }

    /** The labels a provider attaches for this input (besides {@link SandboxLabels#MANAGED}). */
    public Map<String, String> labels() {
        Map<String, String> labels = new java.util.LinkedHashMap<>();
        key.ifPresent(k -> labels.put(SandboxLabels.KEY, k));
        tenant.ifPresent(t -> labels.put(SandboxLabels.TENANT, t));
        installation.ifPresent(i -> labels.put(SandboxLabels.INSTALLATION, i));
        pool.ifPresent(k -> labels.put(SandboxLabels.POOL, k));
        return labels;
    }
}
