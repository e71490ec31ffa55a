package dev.agentbox.sandbox;

import dev.agentbox.platform.Redactor;
import dev.agentbox.platform.ShellQuote;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.store.SecretNames;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Secrets live only inside the running sandbox: a file on the sandbox's tmpfs ({@code /dev/shm},
 * never part of a container commit or {@code docker inspect}) that every command sources first (see
 * {@link SecretsHandle}). The file's content travels to the sandbox in the environment of one exec,
 * never on a command line, in the database, in a log line or in a label.
 */
public final class SandboxSecrets {

    static final String DIR = "/dev/shm/agentbox";
    private static final String TRANSFER_VAR = "AGENTBOX_SECRETS_TRANSFER";

    /**
     * More than any honest secrets file; a sandbox that grows its file cannot make the server
     * buffer it.
     */
    static final int MAX_READ_BYTES = 256 * 1024;

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(10);

    private SandboxSecrets() {}

    /**
     * The secrets file of a sandbox (per sandbox id, so host-process sandboxes do not share one).
     */
    static String file(String sandboxId) {
        return DIR + "/" + sandboxId.replaceAll("[^A-Za-z0-9._-]", "_") + ".env";
    }

    /** The prefix that makes a command see the sandbox's secrets. Harmless when there are none. */
    static String sourcing(String sandboxId) {
        String f = ShellQuote.single(file(sandboxId));
        return "if [ -r " + f + " ]; then . " + f + "; fi; ";
    }

    /** A placeholder the sandbox holds instead of a brokered secret: nothing but random. */
    static final java.util.regex.Pattern PLACEHOLDER =
            java.util.regex.Pattern.compile("agentbox-brokered-[0-9a-f]{40}");

    private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();

    /** Whether {@code w} brings any secret, held or brokered. */
    static boolean any(SandboxSpec.Workspace w) {
        return !w.secrets().isEmpty() || !w.brokered().isEmpty();
    }

    /** The names of {@code w}'s secrets by form, for the sandbox's record (never a value). */
    static SecretNames names(SandboxSpec.Workspace w) {
        return SecretNames.of(w.brokered().keySet(), w.secrets().keySet());
    }

    /**
     * {@code before} after a patch of plain secrets: a name set is plain now (its value replaced a
     * brokered one's placeholder), a name removed is gone.
     */
    static SecretNames patched(SecretNames before, Map<String, Optional<String>> patch) {
        java.util.Set<String> brokered = new java.util.TreeSet<>(before.brokered());
        java.util.Set<String> plain = new java.util.TreeSet<>(before.plain());
        patch.forEach(
                (name, value) -> {
                    brokered.remove(name);
                    if (value.isPresent()) {
                        plain.add(name);
                    } else {
                        plain.remove(name);
                    }
                });
        return SecretNames.of(brokered, plain);
    }

    /**
     * Installs the workspace's secrets: the held ones as they are, each brokered one as a
     * placeholder in the sandbox and its value at the sandbox's egress gateway (docs/egress.md). A
     * brokered variable keeps the placeholder the sandbox already has, so an agent started before
     * this ensure goes on working; the gateway's values are replaced (an ensure without brokered
     * secrets removes them).
     */
    public static void install(SandboxHandle raw, SandboxSpec.Workspace w) {
        Map<String, String> file = new LinkedHashMap<>(w.secrets());
        Map<String, dev.agentbox.sandbox.spi.BrokeredSecret> byPlaceholder = new LinkedHashMap<>();
        if (!w.brokered().isEmpty()) {
            Map<String, String> held = installed(raw).orElse(Map.of());
            w.brokered()
                    .forEach(
                            (name, secret) -> {
                                String p = held.get(name);
                                if (p == null
                                        || !PLACEHOLDER.matcher(p).matches()
                                        || byPlaceholder.containsKey(p)) {
                                    p = newPlaceholder();
                                }
                                file.put(name, p);
                                byPlaceholder.put(p, secret.named(name));
                            });
        }
        raw.brokerSecrets(byPlaceholder);
        install(raw, file);
    }

    /**
     * The brokered variables of the sandbox, placeholder to name, read from its secrets file (never
     * a value: the file holds only placeholders for them). The sandbox may have rewritten its own
     * file; what this returns only ever names a variable in a refusal, never decides where a value
     * goes. Empty when there is no file or it cannot be read.
     */
    public static Map<String, String> brokeredNames(SandboxHandle handle) {
        Map<String, String> out = new LinkedHashMap<>();
        try {
            installed(handle)
                    .orElse(Map.of())
                    .forEach(
                            (name, value) -> {
                                if (PLACEHOLDER.matcher(value).matches()) {
                                    out.putIfAbsent(value, name);
                                }
                            });
        } catch (RuntimeException sandboxGone) {
            return Map.of();
        }
        return out;
    }

    private static String newPlaceholder() {
        byte[] b = new byte[20];
        RANDOM.nextBytes(b);
        return "agentbox-brokered-" + java.util.HexFormat.of().formatHex(b);
    }

    /**
     * Writes (or replaces) the secrets file; an empty map removes it. Called on every ensure,
     * because secrets are re-supplied by the caller and never stored.
     */
    public static void install(SandboxHandle raw, Map<String, String> secrets) {
        String f = ShellQuote.single(file(raw.id()));
        if (secrets.isEmpty()) {
            raw.process().exec("rm -f " + f);
            return;
        }
        String content = render(secrets);
        ExecResult r =
                raw.process()
                        .exec(
                                "umask 077 && mkdir -p "
                                        + DIR
                                        + " && printf '%s' \"$"
                                        + TRANSFER_VAR
                                        + "\" > "
                                        + f,
                                ProcessOptions.defaults().withEnv(Map.of(TRANSFER_VAR, content)));
        if (r.exitCode() != 0) {
            // The stderr of printf/mkdir cannot contain the values; still, say only what failed.
            throw new IllegalStateException(
                    "Could not install secrets in sandbox "
                            + raw.id()
                            + " (exit "
                            + r.exitCode()
                            + ")");
        }
    }

    /**
     * A redactor for the secrets installed in the sandbox, read from its secrets file with the
     * provider's own exec (never through a path that logs output), so a server that never saw the
     * ensure (a takeover, the reaper) redacts the same values. No file, or a sandbox that cannot be
     * read: {@link Redactor#none()}.
     */
    public static Redactor redactorOf(SandboxHandle handle) {
        try {
            return installed(handle).map(m -> Redactor.of(m.values())).orElse(Redactor.none());
        } catch (RuntimeException sandboxGone) {
            return Redactor.none();
        }
    }

    /**
     * The secrets installed in the sandbox, read from its secrets file with the provider's own exec
     * (never through a path that logs output); empty when there is no file or it cannot be read.
     * Throws when the sandbox cannot run the read at all.
     */
    static Optional<Map<String, String>> installed(SandboxHandle handle) {
        SandboxHandle raw = handle instanceof SecretsHandle s ? s.raw() : handle;
        // Bounded in time too: the sandbox's own `head` runs, and a driver or the reaper's
        // finalizer must not wait on a binary the tenant replaced.
        ExecResult r =
                raw.process()
                        .exec(
                                "head -c "
                                        + MAX_READ_BYTES
                                        + " "
                                        + ShellQuote.single(file(raw.id()))
                                        + " 2>/dev/null",
                                ProcessOptions.defaults().withTimeout(READ_TIMEOUT));
        return r.exitCode() == 0 ? Optional.of(parse(r.stdout())) : Optional.empty();
    }

    /**
     * Merges {@code patch} into the installed secrets (a value sets one, an empty value removes
     * one) and installs the result; returns whether any secret is installed afterwards. The values
     * travel as {@link #install} sends them: in the environment of one exec.
     */
    static boolean merge(SandboxHandle raw, Map<String, Optional<String>> patch) {
        Map<String, String> merged = new LinkedHashMap<>(installed(raw).orElse(Map.of()));
        patch.forEach(
                (k, v) -> {
                    if (v.isPresent()) {
                        merged.put(k, v.get());
                    } else {
                        merged.remove(k);
                    }
                });
        install(raw, merged);
        return !merged.isEmpty();
    }

    /** The file's content: one {@code export NAME='value'} line per secret, sorted by name. */
    static String render(Map<String, String> secrets) {
        StringBuilder content = new StringBuilder();
        new TreeMap<>(secrets)
                .forEach(
                        (k, v) ->
                                content.append("export ")
                                        .append(k)
                                        .append('=')
                                        .append(ShellQuote.single(v))
                                        .append('\n'));
        return content.toString();
    }

    /**
     * The secrets of a file {@link #render} wrote. Tolerant: a line it cannot read ends the parse
     * (the tenant may have edited the file inside its own sandbox).
     */
    static Map<String, String> parse(String content) {
        Map<String, String> out = new LinkedHashMap<>();
        int i = 0;
        int n = content.length();
        while (content.startsWith("export ", i)) {
            int eq = content.indexOf('=', i);
            if (eq < 0) {
                break;
            }
            String name = content.substring(i + "export ".length(), eq);
            StringBuilder value = new StringBuilder();
            int j = eq + 1;
            // A single-quoted word as ShellQuote writes it: '...' pieces joined by \' escapes.
            while (j < n && content.charAt(j) != '\n') {
                char c = content.charAt(j);
                if (c == '\'') {
                    int close = content.indexOf('\'', j + 1);
                    if (close < 0) {
                        return out;
                    }
                    value.append(content, j + 1, close);
                    j = close + 1;
                } else if (c == '\\' && j + 1 < n) {
                    value.append(content.charAt(j + 1));
                    j += 2;
                } else {
                    value.append(c);
                    j++;
                }
            }
            out.put(name, value.toString());
            i = j + 1;
        }
        return out;
    }
}
