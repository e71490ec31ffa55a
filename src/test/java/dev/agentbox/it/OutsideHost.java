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
     * The /24 whose /30s are handed out by {@link #startAt} only: {@link #start} never picks an
     * address in it, so a host at a fixed address (one a server's configuration names before the
     * test starts) never meets a random one.
     */
    public static final String FIXED_RANGE = "198.18.251.";

    /**
     * Starts {@code command} (a shell command) in a fresh network-less container and routes to it,
     * on a random /30 outside {@link #FIXED_RANGE}.
     */
    public static OutsideHost start(String image, String command) {
        int third = ThreadLocalRandom.current().nextInt(251);
        int fourth = ThreadLocalRandom.current().nextInt(64) * 4;
        String hostIf =
                "vzo"
                        + Integer.toHexString(
                                ThreadLocalRandom.current().nextInt(0x100000, 0xffffff))
                        + "h";
        OutsideHost h =
                tryStart(image, command, "198.18." + third + ".", fourth, "outside-host", hostIf);
        if (h == null) {
            throw new IllegalStateException("the host already has an interface " + hostIf);
        }
        return h;
    }

    /**
     * Like {@link #start}, on the fixed /30 {@code network} (e.g. {@code "198.18.251.0/30"}, in
     * {@link #FIXED_RANGE}): the host's side is its first address, the container's (its {@link
     * #address()}) the second, known before the test runs, so a server started by the build can pin
     * names to it ({@code agentbox.egress.resolve}).
     *
     * <p>One host per /30 on the machine, whoever asks: the host's interface has a name fixed by
     * the /30, so the kernel lets one run create it, and it goes when that host's container goes.
     * Another run (another checkout's build on the same machine) waits here until it is free, up to
     * {@code patience}: tests that hold such a host are serialized. A host whose owner (the JVM
     * that started it, by boot, pid and start time) is gone — it died before closing — is removed.
     */
    public static OutsideHost startAt(
            String image, String command, String network, java.time.Duration patience) {
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("198\\.18\\.251\\.(\\d{1,3})/30").matcher(network);
        if (!m.matches()
                || Integer.parseInt(m.group(1)) % 4 != 0
                || Integer.parseInt(m.group(1)) > 252) {
            throw new IllegalArgumentException("not a /30 in " + FIXED_RANGE + "0/24: " + network);
        }
        int fourth = Integer.parseInt(m.group(1));
        String label = "outside-host-" + network.replace('/', '_');
        String hostIf = "vzf251x" + fourth + "h";
        long deadline = System.nanoTime() + patience.toNanos();
        boolean told = false;
        while (true) {
            if (run("ip", "link", "show", hostIf) != 0) {
                OutsideHost h = tryStart(image, command, FIXED_RANGE, fourth, label, hostIf);
                if (h != null) {
                    return h;
                }
            }
            if (removeDeadOwners(label) > 0) {
                continue;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        network + " is still held by another run after " + patience);
            }
            if (!told) {
                System.out.println(
                        "OutsideHost: " + network + " is held by another run; waiting for it");
                told = true;
            }
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** Who started a host: boot, pid and start time of this JVM. */
    private static String owner() {
        try {
            return java.nio.file.Files.readString(
                                    java.nio.file.Path.of("/proc/sys/kernel/random/boot_id"))
                            .trim()
                    + "/"
                    + ProcessHandle.current().pid()
                    + "/"
                    + ProcessHandle.current()
                            .info()
                            .startInstant()
                            .map(Object::toString)
                            .orElse("");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Removes the hosts labelled {@code label} whose owner is gone; how many. */
    private static int removeDeadOwners(String label) {
        String me = owner();
        String bootNow = me.substring(0, me.indexOf('/'));
        int removed = 0;
        String out =
                DockerCli.ok(
                        "ps",
                        "-a",
                        "--filter",
                        "label=agentbox.test=" + label,
                        "--format",
                        "{{.ID}} {{.Label \"agentbox.test.owner\"}}");
        for (String line : out.lines().toList()) {
            String[] f = line.trim().split(" ", 2);
            String[] o = f.length < 2 ? new String[0] : f[1].split("/", 3);
            boolean alive =
                    o.length == 3
                            && o[0].equals(bootNow)
                            && ProcessHandle.of(Long.parseLong(o[1]))
                                    .flatMap(p -> p.info().startInstant())
                                    .map(Object::toString)
                                    .filter(o[2]::equals)
                                    .isPresent();
            if (!f[0].isEmpty() && !alive) {
                DockerCli.run("rm", "-f", f[0]);
                removed++;
            }
        }
        return removed;
    }

    /**
     * Starts the container and wires it to the host through a veth pair whose host side is {@code
     * hostIf}; null, with nothing left behind, when the host already has an interface of that name.
     */
    private static OutsideHost tryStart(
            String image, String command, String net, int fourth, String label, String hostIf) {
        String container =
                DockerCli.ok(
                        "run",
                        "-d",
                        "--network",
                        "none",
                        "--label",
                        "agentbox.test=" + label,
                        "--label",
                        "agentbox.test.owner=" + owner(),
                        image,
                        "sh",
                        "-c",
                        command);
        String peerIf = hostIf.substring(0, hostIf.length() - 1) + "c";
        try {
            sh("ip", "link", "add", hostIf, "type", "veth", "peer", "name", peerIf);
        } catch (IllegalStateException e) {
            DockerCli.run("rm", "-f", container);
            if (run("ip", "link", "show", hostIf) == 0) {
                return null;
            }
            throw e;
        }
        OutsideHost h = new OutsideHost(container, hostIf, net + (fourth + 2));
        try {
            String pid = DockerCli.ok("inspect", "-f", "{{.State.Pid}}", container);
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

    /**
     * Limits the rate at which this host sends (what is downloaded from it) to {@code rate}, a
     * {@code tc} rate such as {@code 100mbit}, with a token bucket on its side of the link; {@code
     * null} removes the limit. A link slower than the machine's own, for benchmarks (this kernel
     * has {@code sch_tbf} but no {@code netem}).
     */
    public void limitSendRate(String rate) {
        String pid = DockerCli.ok("inspect", "-f", "{{.State.Pid}}", container);
        String peerIf = hostIf.substring(0, hostIf.length() - 1) + "c";
        if (rate == null) {
            sh("nsenter", "-t", pid, "-n", "tc", "qdisc", "del", "dev", peerIf, "root");
        } else {
            sh(
                    "nsenter", "-t", pid, "-n", "tc", "qdisc", "replace", "dev", peerIf, "root",
                    "tbf", "rate", rate, "burst", "64kb", "latency", "50ms");
        }
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

    private static int run(String... cmd) {
        try {
            Process p =
                    new ProcessBuilder(cmd)
                            .redirectErrorStream(true)
                            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                            .start();
            return p.waitFor(20, TimeUnit.SECONDS) ? p.exitValue() : -1;
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
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
