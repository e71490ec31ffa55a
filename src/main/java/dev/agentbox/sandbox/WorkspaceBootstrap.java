package dev.agentbox.sandbox;

import dev.agentbox.platform.Redactor;
import dev.agentbox.platform.ShellQuote;
import dev.agentbox.sandbox.SandboxSpec.GitSource;
import dev.agentbox.sandbox.SandboxSpec.SetupStep;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxHandle;
import java.io.IOException;
import java.io.InputStream;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Prepares a new sandbox's workspace: clones the source, then runs the setup steps as if in ONE
 * persistent shell — {@code cd} and {@code export} carry over from step to step.
 *
 * <p>How: each step runs in its own exec, but starts by restoring the shell state the previous step
 * left (working directory and exported variables, kept on the sandbox's tmpfs) and ends by saving
 * it, then prints an end marker with the step's exit status. A step that kills its shell ({@code
 * kill -9 $$}, {@code exit}) never prints the marker, which is how "the shell died" is told apart
 * from "the step failed" — at once, without waiting for anything. Step output goes to a file and
 * only its tail comes back, so a chatty step cannot make the server buffer without bound. A
 * parallel group starts every command from the same saved state and the next step waits for all of
 * them.
 *
 * <p>The end marker cannot be forged by what the step prints. It carries a fresh random nonce per
 * step ({@link SecureRandom}, 128 bits, hex), so text printed without it — a log that contains an
 * earlier marker, a test printing {@code __AGENTBOX_STEP_END__ 0} — does not match. The nonce is no
 * secret from the sandbox (it is in the shell's command line, readable from {@code /proc}), so two
 * more rules make a found marker count: the LAST match is taken (the real marker is printed after
 * the echoed output tail), and its status must equal the exit status of the exec itself, which the
 * trap ends with. A process the step started can write anything to the exec's output, even after
 * the real marker, but it cannot choose its parent shell's exit status: a marker saying 0 from a
 * shell that exited 3 or was killed is not trusted, and the step counts as failed (or as a dead
 * shell). Only the step's own text, run in that shell, could make a failing step look successful —
 * and it is the caller's own command.
 *
 * <p>A {@code local} source arrives as a tar archive packed on the host beforehand ({@link
 * LocalSourceArchive}) and is unpacked into the workspace root through {@link
 * dev.agentbox.sandbox.spi.SandboxFs#writeArchive}, before any setup step runs.
 *
 * <p>Every step text and output tail that leaves this class (the {@code setup-failed} problem, a
 * log line) passes the {@link Redactor} of the workspace's secrets first: a step that prints {@code
 * $API_KEY} must not put its value into the response or the log.
 */
final class WorkspaceBootstrap {

    private static final Logger LOG = Logger.getLogger(WorkspaceBootstrap.class.getName());
    static final int TAIL_CHARS = 1500;
    private static final String STATE = SandboxSecrets.DIR + "/setup";
    private static final String MARKER = "__AGENTBOX_STEP_END__";
    private static final SecureRandom NONCES = new SecureRandom();
    private static final String STEP_VAR = "AGENTBOX_SETUP_STEP";

    private final SandboxHandle handle;
    private final Duration stepTimeout;
    private final ExecutorService parallel;
    private final String label;

    /**
     * Set once at the start of {@link #run}, before any parallel step starts (which orders it for
     * them).
     */
    private Redactor redactor = Redactor.none();

    public WorkspaceBootstrap(
            SandboxHandle handle, Duration stepTimeout, ExecutorService parallel, String label) {
        this.handle = handle;
        this.stepTimeout = stepTimeout;
        this.parallel = parallel;
        this.label = label;
    }

    /** Clones and runs setup; throws {@link SetupFailedException} on the first failure. */
    public void run(SandboxSpec.Workspace workspace) {
        run(workspace, null);
    }

    /**
     * Copies the local source ({@code archive}, packed from {@code workspace.source()}; null for
     * any other source) or clones, then runs setup; throws {@link SetupFailedException} on the
     * first failure.
     */
    public void run(SandboxSpec.Workspace workspace, LocalSourceArchive archive) {
        // brokered values never enter the sandbox; masked anyway, should a host echo one back
        redactor =
                Redactor.of(
                        java.util.stream.Stream.concat(
                                        workspace.secrets().values().stream(),
                                        workspace.brokered().values().stream().map(b -> b.value()))
                                .toList());
        if (archive != null) {
            copy(archive);
        }
        if (workspace.source() instanceof GitSource git) {
            long t0 = System.nanoTime();
            try {
                handle.git()
                        .clone(
                                git.url(),
                                Optional.empty(),
                                git.ref(),
                                git.depth() > 0
                                        ? OptionalInt.of(git.depth())
                                        : OptionalInt.empty());
            } catch (RuntimeException e) {
                throw failed("git clone " + git.url(), -1, "clone failed", e.getMessage());
            }
            LOG.info(
                    () ->
                            label
                                    + ": cloned "
                                    + git.url()
                                    + git.ref().map(r -> "@" + r).orElse("")
                                    + " in "
                                    + ms(t0)
                                    + " ms");
        }
        List<SetupStep> steps = workspace.setup();
        if (steps.isEmpty()) {
            return;
        }
        init();
        try {
            for (int i = 0; i < steps.size(); i++) {
                SetupStep step = steps.get(i);
                long t0 = System.nanoTime();
                LOG.info(
                        label
                                + ": setup step "
                                + (i + 1)
                                + "/"
                                + steps.size()
                                + " started: "
                                + redactor.redact(step.label()));
                if (step.parallel()) {
                    runGroup(step);
                } else {
                    runStep(step.commands().get(0), true);
                }
                LOG.info(
                        label
                                + ": setup step "
                                + (i + 1)
                                + "/"
                                + steps.size()
                                + " done in "
                                + ms(t0)
                                + " ms");
            }
        } finally {
            cleanUp();
        }
    }

    private void copy(LocalSourceArchive archive) {
        long t0 = System.nanoTime();
        try (InputStream tar = archive.open()) {
            handle.fs().writeArchive(handle.workspaceRoot(), tar);
        } catch (IOException | RuntimeException e) {
            throw failed("copy local source", -1, "copy failed", e.getMessage());
        }
        LOG.info(
                () ->
                        label
                                + ": copied the local source: "
                                + archive.files()
                                + " entries, "
                                + archive.bytes()
                                + " bytes in "
                                + ms(t0)
                                + " ms");
    }

    private void init() {
        ExecResult r =
                handle.process()
                        .exec(
                                "umask 077 && mkdir -p "
                                        + STATE
                                        + " && cd "
                                        + ShellQuote.single(handle.workspaceRoot())
                                        + " && pwd > "
                                        + STATE
                                        + "/cwd && export -p > "
                                        + STATE
                                        + "/env");
        if (r.exitCode() != 0) {
            throw failed(
                    "(prepare setup shell)",
                    r.exitCode(),
                    "exit " + r.exitCode(),
                    r.stdout() + r.stderr());
        }
    }

    private void runGroup(SetupStep group) {
        List<CompletableFuture<Void>> running = new ArrayList<>();
        for (String command : group.commands()) {
            running.add(CompletableFuture.runAsync(() -> runStep(command, false), parallel));
        }
        SetupFailedException first = null;
        for (CompletableFuture<Void> f : running) {
            try {
                f.join();
            } catch (CompletionException e) {
                if (first == null && e.getCause() instanceof SetupFailedException s) {
                    first = s;
                } else if (first == null) {
                    throw e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /**
     * Runs one command in the saved shell state; {@code saveState} false for members of a parallel
     * group.
     */
    private void runStep(String command, boolean saveState) {
        String out =
                "/tmp/.agentbox-setup-"
                        + Integer.toHexString(command.hashCode())
                        + "-"
                        + Thread.currentThread().getId()
                        + ".out";
        // The step arrives in an environment variable (no quoting games) and is moved to a
        // shell variable before the saved state is sourced, so the saved environment can
        // never replace the step with an earlier one. The EXIT trap reports the status even
        // when the step itself calls `exit`; only a shell killed outright (kill -9 $$)
        // leaves no end marker. fd 3 is the exec's stdout, untouched by the step's redirect.
        String nonce = nonce();
        String finish =
                (saveState ? "pwd > " + STATE + "/cwd; export -p > " + STATE + "/env; " : "")
                        + "tail -c "
                        + TAIL_CHARS
                        + " "
                        + out
                        + " >&3; rm -f "
                        + out
                        + "; "
                        + "printf \"\\n"
                        + MARKER
                        + " "
                        + nonce
                        + " %d\\n\" \"$__agentbox_rc\" >&3; exit $__agentbox_rc";
        String script =
                "exec 3>&1; __agentbox_step=\"$"
                        + STEP_VAR
                        + "\"; unset "
                        + STEP_VAR
                        + "; "
                        + "cd \"$(cat "
                        + STATE
                        + "/cwd)\" || exit 97; . "
                        + STATE
                        + "/env 2>/dev/null; "
                        + "trap '__agentbox_rc=$?; "
                        + finish
                        + "' EXIT; "
                        + "{ eval \"$__agentbox_step\"; } 3>&- > "
                        + out
                        + " 2>&1 < /dev/null; exit $?";
        ExecResult r =
                handle.process()
                        .exec(
                                script,
                                ProcessOptions.defaults()
                                        .withEnv(Map.of(STEP_VAR, command))
                                        .withTimeout(stepTimeout));
        Optional<Marker> marker = endMarker(r.stdout(), nonce);
        if (marker.isPresent() && marker.get().status() == r.exitCode()) {
            int exit = marker.get().status();
            if (exit != 0) {
                throw failed(
                        command,
                        exit,
                        "exit " + exit,
                        r.stdout().substring(0, marker.get().start()));
            }
            return;
        }
        String outputTail = tailOf(out);
        if (r.exitCode() == ExecResult.TIMED_OUT) {
            throw failed(
                    command,
                    r.exitCode(),
                    "timed out after " + stepTimeout.toMillis() + "ms",
                    outputTail);
        }
        throw failed(
                command,
                r.exitCode(),
                "shell exited before the sentinel, exit " + r.exitCode(),
                outputTail + r.stderr());
    }

    /** A step's end marker: its status, and where it starts in the exec's output. */
    record Marker(int status, int start) {}

    /**
     * The LAST end marker with this step's {@code nonce} in {@code stdout}; the caller trusts it
     * only when its status is the exec's exit status too (see the class comment).
     */
    static Optional<Marker> endMarker(String stdout, String nonce) {
        Matcher m =
                Pattern.compile(
                                "(?m)^"
                                        + MARKER
                                        + " "
                                        + Pattern.quote(nonce)
                                        + " (\\d{1,3})[ \\t\\r]*$")
                        .matcher(stdout);
        Marker last = null;
        while (m.find()) {
            last = new Marker(Integer.parseInt(m.group(1)), m.start());
        }
        return Optional.ofNullable(last);
    }

    /** 128 random bits in hex: a fresh one for every step. */
    static String nonce() {
        byte[] b = new byte[16];
        NONCES.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /**
     * The failure of a step, with the step text and the output tail redacted. Redacted before it is
     * cut here; the sandbox already cut it ({@code tail -c}), possibly inside a value, which {@link
     * Redactor#redactTail} masks.
     */
    private SetupFailedException failed(String step, int exitCode, String reason, String output) {
        return new SetupFailedException(
                redactor.redact(step), exitCode, reason, tail(redactor.redactTail(output)));
    }

    private String tailOf(String file) {
        try {
            ExecResult r =
                    handle.process()
                            .exec(
                                    "tail -c "
                                            + TAIL_CHARS
                                            + " "
                                            + file
                                            + " 2>/dev/null; rm -f "
                                            + file);
            return tail(r.stdout());
        } catch (RuntimeException sandboxGone) {
            return "";
        }
    }

    private void cleanUp() {
        try {
            handle.process().exec("rm -rf " + STATE + " /tmp/.agentbox-setup-*.out");
        } catch (RuntimeException e) {
            LOG.fine(label + ": setup state cleanup failed: " + e);
        }
    }

    static String tail(String s) {
        if (s == null) {
            return "";
        }
        String t = s.strip();
        return t.length() > TAIL_CHARS ? t.substring(t.length() - TAIL_CHARS) : t;
    }

    private static long ms(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }
}
