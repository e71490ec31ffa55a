package dev.agentbox.sandbox.kubernetes;

import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxLabels;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The names and labels of the Kubernetes objects of one sandbox, built only here: its pod, the
 * Secret with its tenant's secrets and its NetworkPolicy.
 *
 * <ul>
 *   <li>A sandbox id is its pod's name. The Secret and the NetworkPolicy are named after it, so
 *       destroy finds them from the id alone, even when the pod is already gone.
 *   <li>Labels mirror the Docker provider's ({@link SandboxLabels}). A value Kubernetes cannot hold
 *       as a label (a sandbox key is 64 hex characters, one more than a label value may have) is
 *       replaced by {@code h.} and a hash, and the exact value is kept in an annotation of the same
 *       name: selection works on the hash, listings report the annotation.
 *   <li>{@link #SANDBOX} names the one pod a NetworkPolicy selects.
 * </ul>
 */
final class SandboxObjects {

    /** On every object of a sandbox: the pod's name (the sandbox id). */
    static final String SANDBOX = "dev.agentbox.sandbox";

    /**
     * On a pod: its network as the policy named it ({@code none}, {@code bridge}, {@code egress}).
     */
    static final String NETWORK = "dev.agentbox.network";

    /**
     * On an egress pod: its allow and deny rules ({@link dev.agentbox.sandbox.egress.EgressLabel}).
     */
    static final String EGRESS = "dev.agentbox.egress";

    private static final Pattern LABEL_VALUE =
            Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?");
    private static final Pattern NAME_OK = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

    private SandboxObjects() {}

    /**
     * The pod name for a requested id: {@code agentbox-<id>} when that is a valid DNS label,
     * otherwise a lowercased, cleaned prefix and a hash of the id (two ids never share a name).
     */
    static String podName(SandboxCreateInput input) {
        return input.requestedId()
                .map(SandboxObjects::podName)
                .orElseGet(() -> "agentbox-" + UUID.randomUUID());
    }

    static String podName(String requestedId) {
        String base = "agentbox-" + requestedId;
        if (NAME_OK.matcher(base).matches()) {
            return base;
        }
        String cleaned = requestedId.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-");
        if (cleaned.length() > 28) {
            cleaned = cleaned.substring(0, 28);
        }
        cleaned = cleaned.replaceAll("^-+|-+$", "");
        return "agentbox-" + (cleaned.isEmpty() ? "" : cleaned + "-") + sha256(requestedId, 24);
    }

    /** The Secret of a sandbox: its channel key and its tenant's secrets. */
    static String secretName(String podName) {
        return podName + "-secrets";
    }

    /** The NetworkPolicy of a sandbox. */
    static String policyName(String podName) {
        return podName + "-network";
    }

    /** Where the Secret's tenant secrets are mounted in the pod, read-only (not the key). */
    static final String SECRETS_MOUNT = "/run/agentbox/secrets";

    /**
     * The Secret's item holding the sandbox's channel key (32 raw bytes). Not a valid environment
     * variable name, so no tenant secret can take it.
     */
    static final String CHANNEL_KEY_ITEM = "agentbox-channel-key";

    /** Where the key item alone is mounted, read-only, for the helper. */
    static final String CHANNEL_KEY_MOUNT = "/run/agentbox/channel";

    /** The key file the helper reads at its start. */
    static final String CHANNEL_KEY_FILE = CHANNEL_KEY_MOUNT + "/key";

    /** The in-sandbox helper, where every agentbox sandbox image carries it. */
    static final String HELPER = "/opt/agentbox/bin/agentbox-sandboxd";

    /**
     * The labels of every object of the sandbox: {@link SandboxLabels#MANAGED}, the input's labels
     * (encoded where needed) and {@link #SANDBOX}.
     */
    static Map<String, String> labels(String podName, SandboxCreateInput input) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(SandboxLabels.MANAGED, "true");
        input.labels().forEach((k, v) -> labels.put(k, labelValue(v)));
        labels.put(SANDBOX, podName);
        return labels;
    }

    /** The exact values of the labels that had to be hashed, by label name. */
    static Map<String, String> annotations(SandboxCreateInput input) {
        Map<String, String> annotations = new LinkedHashMap<>();
        input.labels()
                .forEach(
                        (k, v) -> {
                            if (!labelValue(v).equals(v)) {
                                annotations.put(k, v);
                            }
                        });
        return annotations;
    }

    /** {@code value} itself when Kubernetes accepts it as a label value, else a hash of it. */
    static String labelValue(String value) {
        return LABEL_VALUE.matcher(value).matches() ? value : "h." + sha256(value, 56);
    }

    private static String sha256(String s, int hexChars) {
        try {
            return HexFormat.of()
                    .formatHex(
                            MessageDigest.getInstance("SHA-256")
                                    .digest(s.getBytes(StandardCharsets.UTF_8)))
                    .substring(0, hexChars);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
