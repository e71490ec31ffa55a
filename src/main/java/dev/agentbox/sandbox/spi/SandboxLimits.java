package dev.agentbox.sandbox.spi;

import java.time.Duration;
import org.eclipse.microprofile.config.Config;

/**
 * Bounds on what one request or one process may make the server hold or wait for (MicroProfile
 * Config keys in brackets). Every provider applies them, so no tenant command can grow the heap
 * without bound or keep a server thread forever.
 *
 * @param maxOutputBytes [agentbox.exec.max-output-bytes] stdout and stderr of one exec together; at
 *     the cap the command's process group is killed and the result is truncated. Default 16 MiB, at
 *     least 8 MiB
 * @param defaultExecTimeout [agentbox.exec.default-timeout-ms] the deadline of an exec that names
 *     none. Default 10 min
 * @param maxExecTimeout [agentbox.exec.max-timeout-ms] the largest {@code timeoutMs} a request may
 *     ask for. Default 1 h
 * @param maxReadBytes [agentbox.files.max-read-bytes] the largest file a read returns. Default 64
 *     MiB
 * @param internalExecTimeout [agentbox.exec.internal-timeout-ms] deadline of every exec the server
 *     runs for itself (kill, stat, list, a file read's silence...), whatever the provider. Default
 *     30 s. The key's former, Docker-named spelling {@link #LEGACY_INTERNAL_TIMEOUT_KEY} still
 *     applies when set, and then wins
 * @param processBufferChars [agentbox.processes.max-buffered-chars] characters of a background
 *     process's output kept for late subscribers (the newest). Default 1 Mi
 */
public record SandboxLimits(
        long maxOutputBytes,
        Duration defaultExecTimeout,
        Duration maxExecTimeout,
        long maxReadBytes,
        Duration internalExecTimeout,
        int processBufferChars) {

    public SandboxLimits {
        if (maxOutputBytes < 1 || maxReadBytes < 0 || processBufferChars < 1) {
            throw new IllegalArgumentException("agentbox output limits must be positive");
        }
        if (!positive(defaultExecTimeout)
                || !positive(maxExecTimeout)
                || !positive(internalExecTimeout)) {
            throw new IllegalArgumentException("agentbox exec deadlines must be positive");
        }
    }

    public static SandboxLimits defaults() {
        return new SandboxLimits(
                16L << 20,
                Duration.ofMinutes(10),
                Duration.ofHours(1),
                64L << 20,
                Duration.ofSeconds(30),
                1 << 20);
    }

    /**
     * The smallest configurable exec output cap: the run driver polls journals in 4 MiB pieces,
     * base64-encoded (about 5.4 MiB of output), and must never see one truncated.
     */
    public static final long MIN_CONFIGURED_OUTPUT_BYTES = 8L << 20;

    /**
     * The internal exec deadline's key before every provider used it. An operator who set it must
     * not silently lose the setting on upgrade, so when present it wins over the new key (whose
     * default is always present in the configuration file, so precedence the other way round would
     * ignore it).
     */
    public static final String LEGACY_INTERNAL_TIMEOUT_KEY =
            "agentbox.docker.internal-exec-timeout-ms";

    /**
     * The configured limits; an output cap below {@link #MIN_CONFIGURED_OUTPUT_BYTES} is a startup
     * error.
     */
    public static SandboxLimits fromConfig(Config c) {
        SandboxLimits d = defaults();
        long maxOutput =
                c.getOptionalValue("agentbox.exec.max-output-bytes", Long.class)
                        .orElse(d.maxOutputBytes());
        if (maxOutput < MIN_CONFIGURED_OUTPUT_BYTES) {
            throw new IllegalArgumentException(
                    "agentbox.exec.max-output-bytes must be at least "
                            + MIN_CONFIGURED_OUTPUT_BYTES
                            + " (journal reads need it): "
                            + maxOutput);
        }
        return new SandboxLimits(
                maxOutput,
                millis(c, "agentbox.exec.default-timeout-ms", d.defaultExecTimeout()),
                millis(c, "agentbox.exec.max-timeout-ms", d.maxExecTimeout()),
                c.getOptionalValue("agentbox.files.max-read-bytes", Long.class)
                        .orElse(d.maxReadBytes()),
                c.getOptionalValue(LEGACY_INTERNAL_TIMEOUT_KEY, Long.class)
                        .map(Duration::ofMillis)
                        .orElseGet(
                                () ->
                                        millis(
                                                c,
                                                "agentbox.exec.internal-timeout-ms",
                                                d.internalExecTimeout())),
                c.getOptionalValue("agentbox.processes.max-buffered-chars", Integer.class)
                        .orElse(d.processBufferChars()));
    }

    private static boolean positive(Duration d) {
        return !d.isNegative() && !d.isZero();
    }

    private static Duration millis(Config c, String key, Duration dflt) {
        return c.getOptionalValue(key, Long.class).map(Duration::ofMillis).orElse(dflt);
    }

    public SandboxLimits withMaxOutputBytes(long b) {
        return new SandboxLimits(
                b,
                defaultExecTimeout,
                maxExecTimeout,
                maxReadBytes,
                internalExecTimeout,
                processBufferChars);
    }

    public SandboxLimits withMaxReadBytes(long b) {
        return new SandboxLimits(
                maxOutputBytes,
                defaultExecTimeout,
                maxExecTimeout,
                b,
                internalExecTimeout,
                processBufferChars);
    }
}
