package dev.agentbox.sandbox.kubernetes;

import dev.agentbox.sandbox.channel.ChannelKey;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The Secret that carries one sandbox's channel key and tenant secrets into its pod, and nowhere
 * else.
 *
 * <ul>
 *   <li>Every sandbox has one: it holds at least the sandbox's channel key ({@link
 *       SandboxObjects#CHANNEL_KEY_ITEM}), made for this sandbox alone. Any replica reads the key
 *       back through the API ({@link #readKey}), so none has to have made the sandbox; no other pod
 *       can read it (sandbox pods have no service account token).
 *   <li>One Secret per sandbox, named after its pod ({@link SandboxObjects#secretName}) and
 *       carrying the pod's labels (tenant included): no pod ever mounts another sandbox's Secret,
 *       so a tenant never sees another's.
 *   <li>Written before the pod exists (a pod whose Secret volume is missing would not start), then
 *       owned by the pod ({@link #adopt}), so the cluster deletes it with the pod even when no
 *       server is left to; destroy deletes it too.
 *   <li>Values travel only in the Secret's data: never in a label, an annotation, the pod spec or a
 *       log line.
 * </ul>
 */
final class SandboxSecretWriter {

    private final KubernetesClient client;
    private final String namespace;

    SandboxSecretWriter(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    /**
     * Creates the Secret of pod {@code podName} holding its channel {@code key} and {@code
     * secrets}, one item each.
     */
    Secret write(
            String podName,
            Map<String, String> labels,
            ChannelKey key,
            Map<String, String> secrets) {
        if (secrets.containsKey(SandboxObjects.CHANNEL_KEY_ITEM)) {
            throw new IllegalArgumentException(
                    "a secret may not be named " + SandboxObjects.CHANNEL_KEY_ITEM);
        }
        Map<String, String> data = new LinkedHashMap<>();
        data.put(SandboxObjects.CHANNEL_KEY_ITEM, Base64.getEncoder().encodeToString(key.bytes()));
        secrets.forEach(
                (k, v) ->
                        data.put(
                                k,
                                Base64.getEncoder()
                                        .encodeToString(v.getBytes(StandardCharsets.UTF_8))));
        Secret secret =
                new SecretBuilder()
                        .withNewMetadata()
                        .withName(SandboxObjects.secretName(podName))
                        .withNamespace(namespace)
                        .withLabels(labels)
                        .endMetadata()
                        .withType("Opaque")
                        .withImmutable(true)
                        .withData(data)
                        .build();
        return client.secrets().inNamespace(namespace).resource(secret).create();
    }

    /**
     * The channel key of pod {@code podName}, read from its Secret; empty when the Secret or its
     * key item is missing or malformed (a sandbox made before the channel existed).
     */
    Optional<ChannelKey> readKey(String podName) {
        Secret s =
                client.secrets()
                        .inNamespace(namespace)
                        .withName(SandboxObjects.secretName(podName))
                        .get();
        if (s == null || s.getData() == null) {
            return Optional.empty();
        }
        String item = s.getData().get(SandboxObjects.CHANNEL_KEY_ITEM);
        try {
            byte[] bytes = Base64.getDecoder().decode(item == null ? "" : item);
            return bytes.length == ChannelKey.LENGTH
                    ? Optional.of(ChannelKey.of(bytes))
                    : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** Makes {@code pod} the owner of its Secret: the cluster's garbage collector removes both. */
    void adopt(Pod pod) {
        client.secrets()
                .inNamespace(namespace)
                .withName(SandboxObjects.secretName(pod.getMetadata().getName()))
                .edit(s -> owned(s, pod));
    }

    /** Deletes the Secret of pod {@code podName}; a missing one is fine. */
    void delete(String podName) {
        client.secrets()
                .inNamespace(namespace)
                .withName(SandboxObjects.secretName(podName))
                .delete();
    }

    /** {@code object} with {@code pod} as its owner (replacing any owner it had). */
    static <T extends HasMetadata> T owned(T object, Pod pod) {
        object.getMetadata().setOwnerReferences(java.util.List.of(ownerReference(pod)));
        return object;
    }

    static OwnerReference ownerReference(Pod pod) {
        return new OwnerReferenceBuilder()
                .withApiVersion("v1")
                .withKind("Pod")
                .withName(pod.getMetadata().getName())
                .withUid(pod.getMetadata().getUid())
                .withBlockOwnerDeletion(false)
                .withController(false)
                .build();
    }
}
