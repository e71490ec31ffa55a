package dev.agentbox.sandbox.pool;

import dev.agentbox.platform.CanonicalJson;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import jakarta.json.Json;
import jakarta.json.JsonObjectBuilder;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * One kind of warm sandbox: a provider, an image and a policy. An ensure takes from the pool only
 * when all three are exactly its own, so a pooled sandbox is indistinguishable from one made for
 * the ensure: same image, same limits, same hardening, same network.
 *
 * <p>Only network {@code none} without ports can be pooled: a bridge sandbox joins its tenant's
 * network when it is made, and a pooled one has no tenant yet; an egress sandbox's reach is its
 * ensure's own rules, so it is always made for its ensure.
 */
public record PoolEntry(String provider, String image, SandboxPolicy policy) {

    public PoolEntry {
        if (policy.network() != SandboxPolicy.Network.NONE || !policy.ports().isEmpty()) {
            throw new IllegalArgumentException(
                    "only network none without ports can be pooled: " + image);
        }
    }

    /**
     * The pool's stable name on every server: a hash of provider, image and policy (16 hex chars).
     */
    public String key() {
        JsonObjectBuilder p = Json.createObjectBuilder();
        policy.memoryMb().ifPresent(m -> p.add("memoryMb", m));
        policy.cpus().ifPresent(c -> p.add("cpus", c));
        policy.pids().ifPresent(n -> p.add("pids", n));
        return CanonicalJson.sha256Of(
                        Json.createObjectBuilder()
                                .add("v", 1)
                                .add("provider", provider)
                                .add("image", image)
                                .add("policy", p)
                                .build())
                .substring(0, 16);
    }

    /**
     * Whether an ensure of {@code image} (resolved) with {@code policy} can take from this pool.
     */
    public boolean serves(String provider, String image, SandboxPolicy policy) {
        return this.provider.equals(provider)
                && this.image.equals(image)
                && this.policy.equals(policy);
    }

    /**
     * Parses one entry of {@code agentbox.pool.entries}: {@code image} or {@code
     * image|memoryMb=N|cpus=X|pids=N} (any subset of the limits, unset ones are the provider's
     * defaults, as in an ensure).
     */
    public static PoolEntry parse(String provider, String text) {
        String[] parts = text.trim().split("\\|");
        String image = parts[0].trim();
        if (image.isEmpty()) {
            throw new IllegalArgumentException("pool entry without an image: \"" + text + "\"");
        }
        OptionalInt memory = OptionalInt.empty();
        OptionalDouble cpus = OptionalDouble.empty();
        OptionalInt pids = OptionalInt.empty();
        for (int i = 1; i < parts.length; i++) {
            String[] kv = parts[i].trim().split("=", 2);
            String value = kv.length == 2 ? kv[1].trim() : "";
            try {
                switch (kv[0].trim()) {
                    case "memoryMb" -> memory = OptionalInt.of(positive(Integer.parseInt(value)));
                    case "cpus" -> cpus = OptionalDouble.of(positive(Double.parseDouble(value)));
                    case "pids" -> pids = OptionalInt.of(positive(Integer.parseInt(value)));
                    default -> throw new IllegalArgumentException("unknown setting");
                }
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "pool entry \""
                                + text
                                + "\": \""
                                + parts[i].trim()
                                + "\" is not memoryMb=N, cpus=X or pids=N",
                        e);
            }
        }
        return new PoolEntry(
                provider,
                image,
                new SandboxPolicy(
                        SandboxPolicy.Network.NONE, memory, cpus, pids, java.util.List.of()));
    }

    private static int positive(int n) {
        if (n <= 0) {
            throw new IllegalArgumentException("must be positive");
        }
        return n;
    }

    private static double positive(double n) {
        if (!(n > 0) || Double.isInfinite(n)) {
            throw new IllegalArgumentException("must be positive");
        }
        return n;
    }

    /** For logs: image and the limits that are set. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(image);
        policy.memoryMb().ifPresent(m -> s.append("|memoryMb=").append(m));
        policy.cpus().ifPresent(c -> s.append("|cpus=").append(c));
        policy.pids().ifPresent(n -> s.append("|pids=").append(n));
        return s.toString();
    }

    static Optional<PoolEntry> find(
            java.util.List<PoolEntry> entries, String provider, String image, SandboxPolicy p) {
        return entries.stream().filter(e -> e.serves(provider, image, p)).findFirst();
    }
}
