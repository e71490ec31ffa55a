package dev.agentbox.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A stand-in for "somewhere on the internet" that never leaves this machine: a container with no
 * Docker network at all, wired to the host by a veth pair on a 198.18.x.y/30 (a benchmarking range,
 * routed nowhere). A bridge sandbox reaches it the way it reaches the outside world — routed by the
 * host, out of its bridge, not to the host itself and not into another Docker bridge — so egress
 * can be proven without sending a packet to any outside address.
 *
 * <p>Needs root on the engine host (the ITs run there). Closing removes the container (and with its
 * network namespace, the veth pair).
 */
public final class OutsideHost implements AutoCloseable {

    private final String container;
    private final String hostIf;
    private final String address;

    private OutsideHost(String container, String hostIf, String address) {
        this.container = container;
        this.hostIf = hostIf;
        this.address = address;
    }

    /**
     * Starts {@code command} (a shell command) in a fresh network-less container and routes to it.
     */
    public static OutsideHost start(String image, String command) {
        String container =
                DockerCli.ok(
                        "run",
                        "-d",
                        "--network",
                        "none",
                        "--label",
                        "agentbox.test=outside-host",
                        image,
                        "sh",
                        "-c",
                        command);
        String suffix =
                Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xffffff));
        String hostIf = "vzo" + suffix + "h";
        String peerIf = "vzo" + suffix + "c";
        int third = ThreadLocalRandom.current().nextInt(256);
        int fourth = ThreadLocalRandom.current().nextInt(64) * 4;
        String net = "198.18." + third + ".";
        OutsideHost h = new OutsideHost(container, hostIf, net + (fourth + 2));
        try {
            String pid = DockerCli.ok("inspect", "-f", "{{.State.Pid}}", container);
            sh("ip", "link", "add", hostIf, "type", "veth", "peer", "name", peerIf);
            sh("ip", "link", "set", peerIf, "netns", pid);
            sh("ip", "addr", "add", net + (fourth + 1) + "/30", "dev", hostIf);
            sh("ip", "link", "set", hostIf, "up");
            sh(
                    "nsenter",
                    "-t",
                    pid,
                    "-n",
                    "ip",
                    "addr",
                    "add",
                    net + (fourth + 2) + "/30",
                    "dev",
                    peerIf);
            sh("nsenter", "-t", pid, "-n", "ip", "link", "set", peerIf, "up");
            return h;
        } catch (RuntimeException e) {
            h.close();
            throw e;
        }
    }

    /** The address a sandbox connects to. */
    public String address() {
        return address;
    }

    /**
     * Packets the host has sent into this host's link so far (its veth's transmit counter): what
     * reached it, whoever sent it.
     */
    public long packetsIn() {
        try {
            return Long.parseLong(
                    java.nio.file.Files.readString(
                                    java.nio.file.Path.of(
                                            "/sys/class/net", hostIf, "statistics", "tx_packets"))
                            .trim());
        } catch (IOException e) {
            throw new IllegalStateException("no counter for " + hostIf, e);
        }
    }

    /**
     * Starts a host program inside this host's network namespace only (its files are the
     * machine's): e.g. Node.js serving on this host's address. The caller stops it.
     */
    public Process startInNetwork(List<String> command) throws IOException {
        String pid = DockerCli.ok("inspect", "-f", "{{.State.Pid}}", container);
        List<String> cmd = new ArrayList<>(List.of("nsenter", "-t", pid, "-n"));
        cmd.addAll(command);
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }

    public String container() {
        return container;
    }

    @Override
    public void close() {
        DockerCli.run("rm", "-f", container);
        try {
            new ProcessBuilder("ip", "link", "del", hostIf)
                    .redirectErrorStream(true)
                    .start()
                    .waitFor(10, TimeUnit.SECONDS);
        } catch (IOException e) {
            // gone with the container's namespace
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sh(String... cmd) {
        try {
            Process p =
                    new ProcessBuilder(new ArrayList<>(List.of(cmd)))
                            .redirectErrorStream(true)
                            .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(20, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException(
                        String.join(" ", cmd)
                                + " failed (root on the engine host is needed): "
                                + out);
            }
        } catch (IOException e) {
            throw new IllegalStateException(String.join(" ", cmd) + " not runnable: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
