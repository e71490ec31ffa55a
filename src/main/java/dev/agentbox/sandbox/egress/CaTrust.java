package dev.agentbox.sandbox.egress;

import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxProcesses;
import java.util.Map;

/**
 * Makes an egress sandbox trust the installation's CA, which signs what its gateway serves for
 * brokered hosts (and the refusal page inside a refused TLS connection): the CA in a file of its
 * own, and a bundle of it with the image's roots for the clients that take one file ({@code
 * SSL_CERT_FILE}, {@code REQUESTS_CA_BUNDLE}; Node.js adds {@code NODE_EXTRA_CA_CERTS}). The PEM
 * travels in the environment of one command. Best effort where the image has no roots.
 */
public final class CaTrust {

    private static final String ROOTS = "/etc/ssl/certs/ca-certificates.crt";

    private CaTrust() {}

    /**
     * Writes {@code pem} to {@code caFile} and the bundle to {@code bundleFile} (both in one
     * directory), and, with {@code intoImageRoots}, appends the CA to the image's own bundle too,
     * for clients that read only that (it needs a sandbox user that may write it).
     */
    public static void install(
            SandboxProcesses sandbox,
            String pem,
            String caFile,
            String bundleFile,
            boolean intoImageRoots) {
        String dir = caFile.substring(0, caFile.lastIndexOf('/'));
        String script =
                "mkdir -p "
                        + dir
                        + " && printf '%s' \"$AGENTBOX_EGRESS_CA\" > "
                        + caFile
                        + " && { cat "
                        + ROOTS
                        + " 2>/dev/null; cat "
                        + caFile
                        + "; } > "
                        + bundleFile
                        + (intoImageRoots
                                ? " && if [ -f "
                                        + ROOTS
                                        + " ]; then cat "
                                        + caFile
                                        + " >> "
                                        + ROOTS
                                        + "; fi"
                                : "");
        ExecResult r =
                sandbox.exec(
                        script,
                        ProcessOptions.defaults()
                                .withEnv(Map.of("AGENTBOX_EGRESS_CA", pem.strip() + "\n")));
        if (r.exitCode() != 0) {
            throw ProblemException.providerUnavailable(
                    "The egress sandbox could not be given the gateway's CA (exit "
                            + r.exitCode()
                            + ").",
                    null);
        }
    }
}
