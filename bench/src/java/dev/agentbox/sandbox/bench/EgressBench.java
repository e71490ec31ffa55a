package dev.agentbox.sandbox.bench;

import dev.agentbox.it.DockerCli;
import dev.agentbox.it.OutsideHost;
import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.sandbox.docker.DockerSandboxProvider;
import dev.agentbox.sandbox.docker.DockerSettings;
import dev.agentbox.sandbox.docker.EgressGatewayNames;
import dev.agentbox.sandbox.egress.EgressSettings;
import dev.agentbox.sandbox.spi.EgressPolicy;
import dev.agentbox.sandbox.spi.EgressRule;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxLimits;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the egress gateway costs a sandbox's HTTP: the same requests from a {@code bridge} sandbox
 * (routed by the host straight to the server) and from an {@code egress} sandbox (through its
 * tenant's gateway, Squid), to one {@link OutsideHost} serving HTTP with BusyBox {@code httpd} and
 * HTTPS with Node.js ({@link BenchHttps}; through the gateway a spliced CONNECT tunnel), then the
 * downloads again with the host's link limited by {@code tc tbf} to each rate of {@code
 * EGRESS_SHAPED} (default {@code 1gbit 100mbit}). Before those, a reference: the unshaped cases
 * again from the egress sandbox through a {@link BareRelay} in the gateway's network namespace
 * instead of its proxy. Times are curl's own ({@code -w
 * '%{time_total}'}), measured inside the sandbox, so the way the command reaches the sandbox does
 * not count. Per iteration one request from each sandbox, the first alternating, so the drift of a
 * shared machine hits both alike.
 *
 * <p>Usage: {@code bench/egress [downloads=100] [small requests=200] [image]}; {@code EGRESS_IMAGE}
 * names another gateway image than {@code agentbox/egress:1}. Needs root (the outside host's veth)
 * and the Docker engine with the gateway image.
 */
public final class EgressBench {

    private static final String NAME = "bench.egress.test";

    /** A name the test TLS material's certificate holds (src/test/resources/egress-test-tls). */
    private static final String TLS_NAME = "allowed.egress.test";

    private static final String CA = "/tmp/bench-ca.pem";

    /** The {@link BareRelay}'s ports in the gateway's network namespace (its proxy: 3128, 53). */
    private static final int RELAY_HTTP = 18080;

    private static final int RELAY_HTTPS = 18443;
    private static final int MIB = 1024 * 1024;
    private static final String FORMAT =
            "%{http_code} %{size_download} %{time_namelookup} %{time_connect}"
                    + " %{time_appconnect} %{time_starttransfer} %{time_total}";

    /** One curl: what it reports, times in seconds. */
    private record Sample(
            int status,
            long bytes,
            double lookup,
            double connect,
            double tls,
            double firstByte,
            double total) {

        static Sample parse(ExecResult r) {
            String[] f = r.stdout().trim().split("\\s+");
            if (r.exitCode() != 0 || f.length != 7) {
                throw new IllegalStateException("curl failed: " + r);
            }
            return new Sample(
                    Integer.parseInt(f[0]),
                    Long.parseLong(f[1]),
                    Double.parseDouble(f[2]),
                    Double.parseDouble(f[3]),
                    Double.parseDouble(f[4]),
                    Double.parseDouble(f[5]),
                    Double.parseDouble(f[6]));
        }
    }

    /**
     * One measured case: the same request from the bridge sandbox ({@code direct}, by address or
     * with curl's {@code --resolve}) and from the egress sandbox ({@code proxied}, through the
     * proxy of its environment); {@code bytes} the size every answer must have.
     */
    /**
     * A 1 MiB download through the gateway, as a multiple of the bridge sandbox's, from a host
     * behind a shaped link (cases (d) and (e)); the unshaped cases are reported for reference.
     */
    static final double DOWNLOAD_TARGET = 1.1;

    private record Case(
            String name, long bytes, String direct, String proxied, int n, boolean relay) {

        Case(String name, long bytes, String direct, String proxied, int n) {
            this(name, bytes, direct, proxied, n, false);
        }

        /** The same request from the egress sandbox through the {@link BareRelay} instead. */
        Case throughRelay(String name, String relayed) {
            return new Case(name, bytes, direct, relayed, n, true);
        }

        /** How the rows name the egress sandbox's side. */
        String side() {
            return relay ? "bare relay" : "egress";
        }

        boolean download() {
            return bytes >= MIB;
        }
    }

    /** {@code gatewayCpuMs}: the gateway container's CPU time per egress request, or -1. */
    private record Result(Case c, Sample[][] samples, double gatewayCpuMs) {}

    public static void main(String[] args) throws Exception {
        int nDownload = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        int nSmall = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        String image = args.length > 2 ? args[2] : "agentbox/sandbox:bookworm";
        String gatewayImage =
                System.getenv().getOrDefault("EGRESS_IMAGE", EgressSettings.DEFAULT_IMAGE);
        List<String> rates =
                List.of(
                        System.getenv()
                                .getOrDefault("EGRESS_SHAPED", "1gbit 100mbit")
                                .trim()
                                .split("\\s+"));
        Cleanup made = new Cleanup("bench-egress-" + UUID.randomUUID());
        Runtime.getRuntime().addShutdownHook(new Thread(made, "bench-egress-cleanup"));
        try {
            made.web =
                    OutsideHost.start(
                            "agentbox/sandbox:busybox",
                            "mkdir -p /www && dd if=/dev/urandom of=/www/1m.bin bs=65536 count=16"
                                    + " 2>/dev/null && printf ok > /www/small"
                                    + " && exec httpd -f -p 80 -h /www");
            Path tls = Path.of(EgressBench.class.getResource("/egress-test-tls/ca.pem").toURI());
            made.https = BenchHttps.start(made.web, tls.getParent());
            EgressSettings defaults = EgressSettings.defaults();
            made.provider =
                    new DockerSandboxProvider(
                            DockerSettings.builder().image(image).build(),
                            SandboxLimits.defaults(),
                            new DaemonThreads("bench-egress"),
                            Clock.systemUTC(),
                            new EgressSettings(
                                    gatewayImage,
                                    defaults.alwaysAllow(),
                                    Map.of(NAME, made.web.address(), TLS_NAME, made.web.address()),
                                    Optional.empty()));
            SandboxHandle bridge =
                    made.sandbox(
                            SandboxPolicy.defaults().withNetwork(SandboxPolicy.Network.BRIDGE));
            made.bridgeNetwork =
                    DockerCli.ok("inspect", "-f", "{{.HostConfig.NetworkMode}}", bridge.id());
            SandboxHandle egress =
                    made.sandbox(
                            SandboxPolicy.defaults()
                                    .withNetwork(SandboxPolicy.Network.EGRESS)
                                    .withEgress(
                                            new EgressPolicy(
                                                    List.of(
                                                            EgressRule.host(NAME),
                                                            EgressRule.host(TLS_NAME)),
                                                    List.of())));
            // spliced CONNECT: the gateway does not verify the server, the client does
            byte[] ca = Files.readAllBytes(tls);
            bridge.fs().write(CA, ca);
            egress.fs().write(CA, ca);
            // the same server and path: by address from the bridge sandbox (it has no name for
            // it), by name through the proxy from the egress one
            String direct = "http://" + made.web.address();
            String proxied = "http://" + NAME;
            String tlsDirect =
                    "--cacert "
                            + CA
                            + " --resolve "
                            + TLS_NAME
                            + ":443:"
                            + made.web.address()
                            + " https://"
                            + TLS_NAME;
            String tlsProxied = "--cacert " + CA + " https://" + TLS_NAME;
            String gateway = EgressGatewayNames.gateway(made.tenant);
            String gatewayId = DockerCli.ok("inspect", "-f", "{{.Id}}", gateway).strip();
            System.out.printf(
                    Locale.ROOT,
                    "bench/egress: image %s, outside host %s, gateway %s (%s, build %s), %s,"
                            + " egress sandbox's HTTP_PROXY %s%n",
                    image,
                    made.web.address(),
                    gateway,
                    gatewayImage,
                    abbreviated(
                            DockerCli.ok(
                                    "image",
                                    "inspect",
                                    "-f",
                                    "{{index .Config.Labels \"dev.agentbox.build\"}}",
                                    gatewayImage)),
                    DockerCli.ok("version", "-f", "docker {{.Server.Version}}"),
                    egress.process().exec("printenv HTTP_PROXY").stdout().strip());

            List<Case> cases = new ArrayList<>();
            cases.add(
                    new Case(
                            "(a) 1 MiB download",
                            MIB,
                            direct + "/1m.bin",
                            proxied + "/1m.bin",
                            nDownload));
            cases.add(
                    new Case(
                            "(b) small request (2 bytes)",
                            2,
                            direct + "/small",
                            proxied + "/small",
                            nSmall));
            cases.add(
                    new Case(
                            "(c) 1 MiB download, HTTPS (spliced CONNECT)",
                            MIB,
                            tlsDirect + "/1m.bin",
                            tlsProxied + "/1m.bin",
                            nDownload));
            List<Result> results = new ArrayList<>();
            for (Case c : cases) {
                results.add(measure(bridge, egress, gatewayId, c));
            }
            Optional<String> noRelay = BareRelay.missing();
            if (noRelay.isPresent()) {
                System.out.println(
                        "bench/egress: no bare-relay reference cases ((a') to (c')): "
                                + noRelay.get()
                                + " is not installed");
            } else {
                // the reference: the same hop, a relay that only copies bytes in the proxy's place
                String gatewayAddress =
                        URI.create(egress.process().exec("printenv HTTP_PROXY").stdout().strip())
                                .getHost();
                made.relay =
                        BareRelay.start(
                                DockerCli.ok("inspect", "-f", "{{.State.Pid}}", gateway).strip(),
                                made.web.address(),
                                new int[] {RELAY_HTTP, RELAY_HTTPS},
                                new int[] {80, 443});
                for (Case c : throughRelay(cases, gatewayAddress)) {
                    results.add(measure(bridge, egress, null, c));
                }
                made.relay.close();
                made.relay = null;
            }
            int nShaped = Math.max(20, nDownload / 2);
            for (String rate : rates) {
                if (rate.isEmpty()) {
                    continue;
                }
                made.web.limitSendRate(rate);
                for (Case c :
                        List.of(
                                new Case(
                                        "(d) 1 MiB download, link " + rate,
                                        MIB,
                                        direct + "/1m.bin",
                                        proxied + "/1m.bin",
                                        nShaped),
                                new Case(
                                        "(e) 1 MiB download, HTTPS, link " + rate,
                                        MIB,
                                        tlsDirect + "/1m.bin",
                                        tlsProxied + "/1m.bin",
                                        nShaped))) {
                    results.add(measure(bridge, egress, gatewayId, c));
                }
                made.web.limitSendRate(null);
            }
            System.out.print(report(results));
        } finally {
            made.run();
        }
    }

    /**
     * (a) to (c) again as (a') to (c'): from the egress sandbox to the {@link BareRelay} at the
     * gateway's address, around its proxy ({@code --noproxy}).
     */
    private static List<Case> throughRelay(List<Case> cases, String gatewayAddress) {
        String http = "--noproxy '*' http://" + gatewayAddress + ":" + RELAY_HTTP;
        String https =
                "--noproxy '*' --cacert "
                        + CA
                        + " --resolve "
                        + TLS_NAME
                        + ":"
                        + RELAY_HTTPS
                        + ":"
                        + gatewayAddress
                        + " https://"
                        + TLS_NAME
                        + ":"
                        + RELAY_HTTPS;
        return List.of(
                cases.get(0).throughRelay("(a') 1 MiB download", http + "/1m.bin"),
                cases.get(1).throughRelay("(b') small request (2 bytes)", http + "/small"),
                cases.get(2).throughRelay("(c') 1 MiB download, HTTPS", https + "/1m.bin"));
    }

    private static String report(List<Result> results) {
        StringBuilder out = new StringBuilder();
        out.append(
                "\n| case | n | median ms | p95 ms | median vs bridge | gateway CPU ms |\n"
                        + "|---|---:|---:|---:|---:|---:|\n");
        for (Result r : results) {
            double base = median(totals(r.samples()[0]));
            row(out, r.c().name() + ", bridge", totals(r.samples()[0]), base, r.c().download(), "");
            row(
                    out,
                    r.c().name() + ", " + r.c().side(),
                    totals(r.samples()[1]),
                    base,
                    r.c().download(),
                    r.c().relay()
                            ? ""
                            : r.gatewayCpuMs() < 0
                                    ? "?"
                                    : String.format(Locale.ROOT, "%.2f", r.gatewayCpuMs()));
        }
        out.append(
                "\nMedians of curl's phases, ms from the start (name lookup done, connected,"
                        + " TLS done, first byte, end):\n\n"
                        + "| case | lookup | connect | TLS | first byte | total |\n"
                        + "|---|---:|---:|---:|---:|---:|\n");
        for (Result r : results) {
            phases(out, r.c().name() + ", bridge", r.samples()[0]);
            phases(out, r.c().name() + ", " + r.c().side(), r.samples()[1]);
        }
        out.append('\n');
        for (Result r : results) {
            double base = median(totals(r.samples()[0]));
            double egress = median(totals(r.samples()[1]));
            if (r.c().relay()) {
                // no target: what the hop costs with nothing but byte copying on it
                out.append(
                        r.c().download()
                                ? String.format(
                                        Locale.ROOT,
                                        "%s: bare relay/bridge median = %.2f (reference, no target)%n",
                                        r.c().name(),
                                        egress / base)
                                : String.format(
                                        Locale.ROOT,
                                        "%s: bare relay - bridge median = %+.2f ms (reference, no target)%n",
                                        r.c().name(),
                                        egress - base));
                continue;
            }
            if (r.c().download() && !r.c().name().contains(", link ")) {
                // a host on this machine sends faster than any real link: the hop's own cost,
                // kept for reference; the download target is measured behind a shaped link
                out.append(
                        String.format(
                                Locale.ROOT,
                                "%s: egress/bridge median = %.2f (reference, loopback, no target)%n",
                                r.c().name(),
                                egress / base));
                continue;
            }
            out.append(
                    r.c().download()
                            ? String.format(
                                    Locale.ROOT,
                                    "%s: egress/bridge median = %.2f (target <= %.1f): %s%n",
                                    r.c().name(),
                                    egress / base,
                                    DOWNLOAD_TARGET,
                                    egress / base <= DOWNLOAD_TARGET ? "met" : "MISSED")
                            : String.format(
                                    Locale.ROOT,
                                    "%s: egress - bridge median = %+.2f ms (target <= +2 ms): %s%n",
                                    r.c().name(),
                                    egress - base,
                                    egress - base <= 2.0 ? "met" : "MISSED"));
        }
        return out.toString();
    }

    /**
     * What the bench made, removed once: at the end, or when the JVM is stopped (Ctrl-C) — the
     * sandboxes, the bench tenant's gateway and networks, the outside host.
     */
    private static final class Cleanup implements Runnable {

        final String tenant;
        final List<SandboxHandle> sandboxes = new CopyOnWriteArrayList<>();
        final AtomicBoolean done = new AtomicBoolean();
        volatile OutsideHost web;
        volatile Process https;
        volatile DockerSandboxProvider provider;
        volatile String bridgeNetwork;
        volatile BareRelay relay;

        Cleanup(String tenant) {
            this.tenant = tenant;
        }

        SandboxHandle sandbox(SandboxPolicy policy) {
            SandboxHandle s =
                    provider.create(
                            SandboxCreateInput.defaults()
                                    .withKey("bench-egress-" + UUID.randomUUID(), tenant)
                                    .withPolicy(policy));
            sandboxes.add(s);
            return s;
        }

        @Override
        public void run() {
            if (!done.compareAndSet(false, true)) {
                return;
            }
            if (relay != null) {
                relay.close();
            }
            if (provider != null) {
                for (SandboxHandle s : sandboxes) {
                    try {
                        provider.destroy(s.id());
                    } catch (RuntimeException e) {
                        System.err.println("bench/egress: destroying " + s.id() + ": " + e);
                    }
                }
                provider.close();
            }
            DockerCli.run("rm", "-f", EgressGatewayNames.gateway(tenant));
            DockerCli.run("network", "rm", EgressGatewayNames.network(tenant));
            if (bridgeNetwork != null) {
                DockerCli.run("network", "rm", bridgeNetwork);
            }
            if (https != null) {
                https.destroyForcibly();
            }
            if (web != null) {
                web.close();
            }
        }
    }

    /**
     * {@code c.n()} requests from each sandbox, after a tenth of them (at least 10) discarded as
     * warm-up; the first of each pair alternates. Every answer is checked: 200 and its size.
     */
    private static Result measure(
            SandboxHandle bridge, SandboxHandle egress, String gatewayId, Case c) {
        Sample[][] out = new Sample[2][c.n()];
        int warm = Math.max(10, c.n() / 10);
        long cpu0 = gatewayId == null ? -1 : cpuNanos(gatewayId);
        for (int i = -warm; i < c.n(); i++) {
            Sample b;
            Sample e;
            if ((i & 1) == 0) {
                b = curl(bridge, c.direct());
                e = curl(egress, c.proxied());
            } else {
                e = curl(egress, c.proxied());
                b = curl(bridge, c.direct());
            }
            if (i >= 0) {
                out[0][i] = b;
                out[1][i] = e;
            }
        }
        long cpu1 = gatewayId == null ? -1 : cpuNanos(gatewayId);
        check(out, c.bytes());
        return new Result(c, out, cpu0 < 0 || cpu1 < 0 ? -1 : (cpu1 - cpu0) / 1e6 / (c.n() + warm));
    }

    /**
     * The CPU time a container has used, in ns, from its cgroup (v1 {@code cpuacct}, or v2 with the
     * cgroupfs or systemd driver); -1 where none is found. Less sensitive than wall time to other
     * work on a shared machine.
     */
    private static long cpuNanos(String id) {
        try {
            Path v1 = Path.of("/sys/fs/cgroup/cpuacct/docker", id, "cpuacct.usage");
            if (Files.exists(v1)) {
                return Long.parseLong(Files.readString(v1).strip());
            }
            for (Path v2 :
                    List.of(
                            Path.of("/sys/fs/cgroup/docker", id, "cpu.stat"),
                            Path.of(
                                    "/sys/fs/cgroup/system.slice",
                                    "docker-" + id + ".scope",
                                    "cpu.stat"))) {
                if (Files.exists(v2)) {
                    for (String line : Files.readAllLines(v2)) {
                        if (line.startsWith("usage_usec ")) {
                            return Long.parseLong(line.substring(11).strip()) * 1000;
                        }
                    }
                }
            }
        } catch (java.io.IOException | NumberFormatException e) {
            // no figure
        }
        return -1;
    }

    /** {@code target}: curl's arguments, options first and the URL (no quote in any) last. */
    private static Sample curl(SandboxHandle s, String target) {
        return Sample.parse(
                s.process()
                        .exec("curl -s -o /dev/null --max-time 30 -w '" + FORMAT + "' " + target));
    }

    private static void check(Sample[][] cases, long bytes) {
        for (Sample[] c : cases) {
            for (Sample s : c) {
                if (s.status() != 200 || s.bytes() != bytes) {
                    throw new IllegalStateException(
                            "expected 200 with " + bytes + " bytes, got " + s);
                }
            }
        }
    }

    private static double[] totals(Sample[] s) {
        return Arrays.stream(s).mapToDouble(x -> x.total() * 1000).toArray();
    }

    private static void phases(StringBuilder out, String name, Sample[] s) {
        out.append(
                String.format(
                        Locale.ROOT,
                        "| %s | %.2f | %.2f | %.2f | %.2f | %.2f |%n",
                        name,
                        median(Arrays.stream(s).mapToDouble(x -> x.lookup() * 1000).toArray()),
                        median(Arrays.stream(s).mapToDouble(x -> x.connect() * 1000).toArray()),
                        median(Arrays.stream(s).mapToDouble(x -> x.tls() * 1000).toArray()),
                        median(Arrays.stream(s).mapToDouble(x -> x.firstByte() * 1000).toArray()),
                        median(totals(s))));
    }

    private static void row(
            StringBuilder out,
            String name,
            double[] ms,
            double base,
            boolean ratio,
            String gatewayCpu) {
        out.append(
                String.format(
                        Locale.ROOT,
                        "| %s | %d | %.2f | %.2f | %s | %s |%n",
                        name,
                        ms.length,
                        median(ms),
                        p95(ms),
                        ratio
                                ? String.format(Locale.ROOT, "%.2f", median(ms) / base)
                                : String.format(Locale.ROOT, "%+.2f ms", median(ms) - base),
                        gatewayCpu));
    }

    private static String abbreviated(String build) {
        return build.length() > 12 ? build.substring(0, 12) : build;
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        int m = s.length / 2;
        return s.length % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2.0;
    }

    private static double p95(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[(int) Math.ceil(0.95 * s.length) - 1];
    }
}
