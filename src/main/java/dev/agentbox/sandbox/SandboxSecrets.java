package dev.agentbox.sandbox;

import dev.agentbox.platform.ShellQuote;
import java.util.Map;
import java.util.TreeMap;

/**
 * Secrets live only inside the running sandbox: a file on the sandbox's tmpfs
 * ({@code /dev/shm}, never part of a container commit or {@code docker inspect}) that
 * every command sources first (see {@link SecretsHandle}). The file's content travels to
 * the sandbox in the environment of one exec, never on a command line, in the database,
 * in a log line or in a label.
 */
public final class SandboxSecrets {

    static final String DIR = "/dev/shm/agentbox";
    private static final String TRANSFER_VAR = "AGENTBOX_SECRETS_TRANSFER";

    private SandboxSecrets() {
    }

    /** The secrets file of a sandbox (per sandbox id, so host-process sandboxes do not share one). */
    static String file(String sandboxId) {
        return DIR + "/" + sandboxId.replaceAll("[^A-Za-z0-9._-]", "_") + ".env";
    }

    /** The prefix that makes a command see the sandbox's secrets. Harmless when there are none. */
    static String sourcing(String sandboxId) {
        String f = ShellQuote.single(file(sandboxId));
        return "if [ -r " + f + " ]; then . " + f + "; fi; ";
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
        StringBuilder content = new StringBuilder();
        new TreeMap<>(secrets).forEach((k, v) -> content.append("export ").append(k).append('=')
                .append(ShellQuote.single(v)).append('\n'));
        ExecResult r = raw.process().exec(
                "umask 077 && mkdir -p " + DIR + " && printf '%s' \"$" + TRANSFER_VAR + "\" > " + f,
                ProcessOptions.defaults().withEnv(Map.of(TRANSFER_VAR, content.toString())));
        if (r.exitCode() != 0) {
            // The stderr of printf/mkdir cannot contain the values; still, say only what failed.
            throw new IllegalStateException("Could not install secrets in sandbox " + raw.id() + " (exit " + r.exitCode() + ")");
        }
    }
}
