package dev.agentbox.run;

import dev.agentbox.platform.Redactor;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.sandbox.Sandbox;
import dev.agentbox.sandbox.SandboxSecrets;
import dev.agentbox.sandbox.SandboxSpec;
import dev.agentbox.sandbox.spi.SandboxHandle;
import java.time.Duration;
import java.util.Optional;

/**
 * A run's sandbox as its driver sees it: ensured (a first driver with a spec) or opened by the key
 * the run records (a successor), the redactor of its secrets, and the touches that keep it from
 * idle expiry while the agent works in it.
 *
 * <p>Invariants: once a first driver ensured the sandbox, its key is recorded on the run before the
 * agent starts, so any successor finds the same sandbox; the redactor is {@link Redactor#none()}
 * only until the sandbox is open, and read from it on first use after that.
 */
final class RunSandbox {

    private final RunContext ctx;
    private final RunRecordView run;
    private final Optional<SandboxSpec> spec;
    private Optional<Sandbox> sandbox = Optional.empty();
    private String key;

    /**
     * The sandbox's secrets, masked in every chunk the driver writes; read on first use once the
     * sandbox is open (null until then).
     */
    private Redactor redactor;

    private SandboxHandle handle;

    RunSandbox(RunContext ctx, RunRecordView run, Optional<SandboxSpec> spec) {
        this.ctx = ctx;
        this.run = run;
        this.spec = spec;
        this.key = run.sandboxKey().orElse(null);
    }

    /**
     * Ensures or opens the sandbox. Its secrets are read on the first {@link #redactor()} call, so
     * that a successor can start reading the journal while that read runs.
     *
     * @throws ProblemException when it cannot be had (an ensure failed, none is recorded, it is
     *     gone)
     */
    SandboxHandle open() {
        handle = openSandbox();
        return handle;
    }

    /** The sandbox once {@link #open} returned it. */
    Optional<SandboxHandle> opened() {
        return Optional.ofNullable(handle);
    }

    /**
     * Whether {@link #open} ensures the sandbox from a spec (which may create it: seconds), rather
     * than opening the recorded one.
     */
    boolean ensures() {
        return spec.isPresent();
    }

    /** The sandbox's key: the recorded one, or the ensured one once open. */
    Optional<String> key() {
        return Optional.ofNullable(key);
    }

    Redactor redactor() {
        if (redactor == null) {
            if (handle == null) {
                return Redactor.none();
            }
            redactor = redactorFor(handle);
        }
        return redactor;
    }

    /**
     * How often to touch the sandbox while the agent works in it: a few times per keep-alive (at
     * most every 30 s, at least every 500 ms).
     */
    long touchEveryNs() {
        return Duration.ofMillis(
                        Math.max(
                                500,
                                Math.min(
                                        30_000,
                                        sandbox.map(s -> s.instance().keepAliveMs() / 3)
                                                .orElse(30_000L))))
                .toNanos();
    }

    /** Marks the sandbox used now; nothing without a key. */
    void touch() {
        if (key != null) {
            ctx.sandboxes().touch(run.tenant(), key);
        }
    }

    /**
     * The sandbox's secrets, masked in the agent's chunks and in its stderr tail (the {@code
     * RUN_ERROR} message and the record's {@code error.message}): the run's log is stored. A first
     * driver that ensured the sandbox has them from the ensure; any other reads them from the
     * sandbox itself, so a successor or the reaper's finalizer, which never saw the ensure, masks
     * the same values.
     */
    private Redactor redactorFor(SandboxHandle handle) {
        return spec.map(
                        s ->
                                Redactor.of(
                                        java.util.stream.Stream.concat(
                                                        s.workspace().secrets().values().stream(),
                                                        s.workspace().brokered().values().stream()
                                                                .map(b -> b.value()))
                                                .toList()))
                .orElseGet(() -> SandboxSecrets.redactorOf(handle));
    }

    private SandboxHandle openSandbox() {
        if (spec.isPresent()) {
            Sandbox s = ctx.sandboxes().ensure(run.tenant(), spec.get()).sandbox();
            key = s.instance().key();
            ctx.runs().setSandboxKey(run.ref(), Optional.of(key));
            sandbox = Optional.of(s);
            return s.handle();
        }
        if (key == null) {
            throw new ProblemException(
                    ProblemCode.AGENT_LOST,
                    "The run has no sandbox recorded",
                    java.util.Map.of(),
                    null);
        }
        Sandbox s = ctx.sandboxes().open(run.tenant(), key);
        sandbox = Optional.of(s);
        return s.handle();
    }
}
