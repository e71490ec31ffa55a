package dev.agentbox.sandbox.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The reference of {@link EgressBench}: a TCP relay that only copies bytes — no HTTP parsing, no
 * CONNECT, no TLS peek, no policy — listening in the egress gateway's network namespace, so a
 * sandbox's request takes the same hop as through the gateway's proxy and nothing else: about what
 * any proxy in the gateway's place costs at least. It is Debian's HAProxy in TCP mode (event
 * driven, splicing where it can), run by the host in that namespace ({@code nsenter -n}); the
 * gateway container is not changed and its CPU figure does not include the relay.
 */
final class BareRelay implements AutoCloseable {

    private final Process haproxy;
    private final Path config;

    private BareRelay(Process haproxy, Path config) {
        this.haproxy = haproxy;
        this.config = config;
    }

    /** Whether this host has what the relay needs; empty if so, else what is missing. */
    static Optional<String> missing() {
        for (String tool : List.of("haproxy", "nsenter", "ss")) {
            boolean found = false;
            for (String dir :
                    System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin").split(":")) {
                found |= Files.isExecutable(Path.of(dir, tool));
            }
            if (!found) {
                return Optional.of(tool);
            }
        }
        return Optional.empty();
    }

    /**
     * Listens in the network namespace of the process {@code nsPid}, on each {@code listen[i]},
     * relaying to {@code host:target[i]}; returns once every port listens.
     */
    static BareRelay start(String nsPid, String host, int[] listen, int[] target)
            throws IOException, InterruptedException {
        StringBuilder cfg =
                new StringBuilder(
                        """
                        global
                          maxconn 1000
                          tune.bufsize 262144
                        defaults
                          mode tcp
                          option splice-auto
                          timeout connect 5s
                          timeout client 60s
                          timeout server 60s
                        """);
        for (int i = 0; i < listen.length; i++) {
            cfg.append("listen relay")
                    .append(listen[i])
                    .append("\n  bind :")
                    .append(listen[i])
                    .append("\n  server upstream ")
                    .append(host)
                    .append(':')
                    .append(target[i])
                    .append('\n');
        }
        Path config = Files.createTempFile("bench-relay", ".cfg");
        Files.writeString(config, cfg);
        BareRelay relay =
                new BareRelay(
                        new ProcessBuilder(
                                        "nsenter",
                                        "-t",
                                        nsPid,
                                        "-n",
                                        "haproxy",
                                        "-db",
                                        "-f",
                                        config.toString())
                                .redirectErrorStream(true)
                                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                                .start(),
                        config);
        try {
            for (int port : listen) {
                awaitListening(nsPid, port);
            }
            return relay;
        } catch (IOException | InterruptedException | RuntimeException e) {
            relay.close();
            throw e;
        }
    }

    private static void awaitListening(String nsPid, int port)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            Process ss =
                    new ProcessBuilder(
                                    "nsenter", "-t", nsPid, "-n", "ss", "-Hltn", "sport = :" + port)
                            .redirectErrorStream(true)
                            .start();
            String out = new String(ss.getInputStream().readAllBytes());
            if (ss.waitFor() == 0 && out.contains("LISTEN")) {
                return;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the bare relay did not listen on " + port);
    }

    /** Stops the relay and removes its configuration. */
    @Override
    public void close() {
        haproxy.descendants().forEach(ProcessHandle::destroyForcibly);
        haproxy.destroyForcibly();
        try {
            Files.deleteIfExists(config);
        } catch (IOException e) {
            // a temporary file left behind
        }
    }
}
