package dev.agentbox.sandbox.spi;

import java.util.Map;
import java.util.Optional;

/**
 * What to make. {@code requestedId}: the id the caller wants (the sandbox service passes the
 * compound key so the sandbox is findable from run context); providers derive their native name
 * from it. {@code image}: overrides the provider's default image. {@code key}/{@code tenant} become
 * labels. {@code env} is the sandbox environment every command sees (never secrets: those are the
 * sandbox service's business). {@code installation} becomes the {@link SandboxLabels#INSTALLATION}
 * label.
 */
public record SandboxCreateInput(
        Optional<String> requestedId,
        Optional<String> key,
        Optional<String> tenant,
        Optional<String> image,
        Map<String, String> env,
        SandboxPolicy policy,
        Optional<String> installation) {

    public SandboxCreateInput(
            Optional<String> requestedId,
            Optional<String> key,
            Optional<String> tenant,
            Optional<String> image,
            Map<String, String> env,
            SandboxPolicy policy) {
        this(requestedId, key, tenant, image, env, policy, Optional.empty());
    }

    public SandboxCreateInput {
        requestedId = requestedId == null ? Optional.empty() : requestedId;
        key = key == null ? Optional.empty() : key;
        tenant = tenant == null ? Optional.empty() : tenant;
        image = image == null ? Optional.empty() : image;
        env = env == null ? Map.of() : Map.copyOf(env);
        policy = policy == null ? SandboxPolicy.defaults() : policy;
        installation = installation == null ? Optional.empty() : installation;
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
                Optional.of(id), key, tenant, image, env, policy, installation);
    }

    public SandboxCreateInput withKey(String k, String t) {
        return new SandboxCreateInput(
                requestedId, Optional.of(k), Optional.of(t), image, env, policy, installation);
    }

    public SandboxCreateInput withImage(String i) {
        return new SandboxCreateInput(
                requestedId, key, tenant, Optional.of(i), env, policy, installation);
    }

    public SandboxCreateInput withEnv(Map<String, String> e) {
        return new SandboxCreateInput(requestedId, key, tenant, image, e, policy, installation);
    }

    public SandboxCreateInput withPolicy(SandboxPolicy p) {
        return new SandboxCreateInput(requestedId, key, tenant, image, env, p, installation);
    }

    public SandboxCreateInput withInstallation(String id) {
        return new SandboxCreateInput(
                requestedId, key, tenant, image, env, policy, Optional.of(id));
    }

    /** The labels a provider attaches for this input (besides {@link SandboxLabels#MANAGED}). */
    public Map<String, String> labels() {
        Map<String, String> labels = new java.util.LinkedHashMap<>();
        key.ifPresent(k -> labels.put(SandboxLabels.KEY, k));
        tenant.ifPresent(t -> labels.put(SandboxLabels.TENANT, t));
        installation.ifPresent(i -> labels.put(SandboxLabels.INSTALLATION, i));
        return labels;
    }
}
