package dev.agentbox.sandbox;

import org.eclipse.microprofile.config.Config;

/**
 * The most an ensure may ask for ({@code agentbox.limits.*}); a request above a ceiling is {@code
 * 400 invalid-request} naming the field and the ceiling, never clipped silently.
 *
 * @param maxMemoryMb [agentbox.limits.max-memory-mb] default 8192
 * @param maxCpus [agentbox.limits.max-cpus] default 4 (the Docker provider also refuses more than
 *     the engine has)
 * @param maxPids [agentbox.limits.max-pids] default 4096
 * @param maxKeepAliveMs [agentbox.limits.max-keep-alive-ms] default 86400000 (one day)
 * @param maxPorts [agentbox.limits.max-ports] default 16
 */
record ResourceCeilings(
        int maxMemoryMb, double maxCpus, int maxPids, long maxKeepAliveMs, int maxPorts) {

    public ResourceCeilings {
        if (maxMemoryMb < 6
                || !(maxCpus > 0)
                || maxPids < 1
                || maxKeepAliveMs < 1000
                || maxPorts < 0) {
            throw new IllegalArgumentException(
                    "agentbox.limits.* ceilings must be positive (memory at least 6 MB,"
                            + " keep-alive at least 1000 ms)");
        }
    }

    public static ResourceCeilings defaults() {
        return new ResourceCeilings(8192, 4.0, 4096, 86_400_000L, 16);
    }

    public static ResourceCeilings fromConfig(Config c) {
        ResourceCeilings d = defaults();
        return new ResourceCeilings(
                c.getOptionalValue("agentbox.limits.max-memory-mb", Integer.class)
                        .orElse(d.maxMemoryMb()),
                c.getOptionalValue("agentbox.limits.max-cpus", Double.class).orElse(d.maxCpus()),
                c.getOptionalValue("agentbox.limits.max-pids", Integer.class).orElse(d.maxPids()),
                c.getOptionalValue("agentbox.limits.max-keep-alive-ms", Long.class)
                        .orElse(d.maxKeepAliveMs()),
                c.getOptionalValue("agentbox.limits.max-ports", Integer.class)
                        .orElse(d.maxPorts()));
    }
}
