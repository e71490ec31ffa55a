package dev.agentbox.sandbox.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The reference of {@link EgressBench}: a TCP relay that only copies bytes — no HTTP parsing, no
 * CONNECT, no policy — listening in the egress gateway's network namespace, so a sandbox's request
 * takes the same hop as through the gateway's proxy and nothing else: roughly what any proxy in
 * the gateway's place costs at least. It is Debian's {@code socat} run by the host in that
 * namespace ({@code nsenter -n}) with a 256 KiB buffer and a process per connection ({@code
 * fork}), so its fixed cost includes a fork that an event-driven relay would not pay. The gateway
 * container is not changed and its CPU figure does not include the relay.
 */
final class BareRelay implements AutoCloseable {

    private final List<Process> listeners = new ArrayList<>();

    private BareRelay() {}

    /** Whether this host has what the relay needs; empty if so, else what is missing. */
    static Optional<String> missing() {
        for (String tool : List.of("socat", "nsenter", "ss")) {
            boolean found = false;
            for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
                found |= Files.isExecutable(Path.of(dir, tool));
            }
            if (!found) {
                return Optional.of(tool);
            }
        }
        return Optional.empty();
    }

    /**
     * Listens in the network namespace of the process {@code nsPid}, on each {@code
     * listen[i]}, relaying to {@code host:target[i]}; returns once every port listens.
     */
    static BareRelay start(String nsPid, String host, int[] listen, int[] target)
            throws IOException, InterruptedException {
        BareRelay relay = new BareRelay();
        try {
            for (int i = 0; i < listen.length; i++) {
                relay.listeners.add(
                        new ProcessBuilder(
                                        "nsenter",
                                        "-t",
                                        nsPid,
                                        "-n",
                                        "socat",
                                        "-b",
                                        "262144",
                                        "TCP-LISTEN:" + listen[i] + ",fork,reuseaddr,nodelay",
                                        "TCP:" + host + ":" + target[i] + ",nodelay")
                                .redirectErrorStream(true)
                                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                                .start());
            }
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

    /** Stops the listeners and the per-connection processes they forked. */
    @Override
    public void close() {
        for (Process p : listeners) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }
}
