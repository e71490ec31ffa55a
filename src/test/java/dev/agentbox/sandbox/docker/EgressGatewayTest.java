package dev.agentbox.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.it.DockerCli;
import dev.agentbox.it.EchoHost;
import dev.agentbox.it.OutsideHost;
import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.sandbox.egress.EgressSettings;
import dev.agentbox.sandbox.spi.EgressPolicy;
import dev.agentbox.sandbox.spi.EgressRule;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxLimits;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import dev.agentbox.testing.NeedsDocker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A hostile agent in an {@code egress} sandbox against its gateway (docs/egress.md; EG-01..EG-08,
 * EG-18). The "internet" is two {@link OutsideHost}s this test starts (routed by the host, like any
 * outside address): {@code web} serves HTTP on 80 and 8080, {@code tls} serves HTTPS on 443 with a
 * certificate of a test CA that the gateway trusts upstream. Names reach them only through the
 * operator's pinned addresses ({@code agentbox.egress.resolve}); nothing leaves this machine. Every
 * refusal is paired with a success from the same sandbox, so a refusal means the policy, not a dead
 * host.
 */
@NeedsDocker
class EgressGatewayTest {

    private static final String IMAGE = "agentbox/sandbox:bookworm";
    private static final String TENANT_A = "egress-a-" + UUID.randomUUID();
    private static final String TENANT_B = "egress-b-" + UUID.randomUUID();

    /** A tenant whose network was made by an older version, with no reserved gateway address. */
    private static final String TENANT_OLD = "egress-old-" + UUID.randomUUID();

    private static final String TENANT_RACE = "egress-race-" + UUID.randomUUID();

    private static Path tlsDir;
    private static OutsideHost web;
    private static OutsideHost tls;
    private static EchoHost echo;
    private static DockerSandboxProvider provider;
    private final List<SandboxHandle> sandboxes = new ArrayList<>();

    @BeforeAll
    static void internet() throws Exception {
        tlsDir = Files.createTempDirectory("egress-tls");
        EchoHost.tls(
                tlsDir,
                "tls.allowed.test",
                "tls.denied.test",
                "tls.other.test",
                "echo.allowed.test",
                "echo2.allowed.test");
        web =
                OutsideHost.start(
                        "agentbox/sandbox:busybox",
                        "mkdir -p /www && echo hello-from-web > /www/index.html"
                                + " && httpd -p 8080 -h /www && httpd -f -p 80 -h /www");
        tls =
                OutsideHost.start(
                        IMAGE,
                        "while [ ! -s /tmp/srv.pem ]; do sleep 0.1; done;"
                                + " exec openssl s_server -4 -quiet -www -accept 443"
                                + " -cert /tmp/srv.pem -key /tmp/srv.key");
        DockerCli.ok("cp", tlsDir.resolve("srv.key").toString(), tls.container() + ":/tmp/srv.key");
        DockerCli.ok("cp", tlsDir.resolve("srv.pem").toString(), tls.container() + ":/tmp/srv.pem");
        // A host that records the credential headers it receives (Node.js in its network only)
        echo = EchoHost.start(tlsDir);
        EgressSettings egress =
                EgressSettings.defaults()
                        .withAlwaysAllow(List.of(EgressRule.host("always.allowed.test")))
                        .withResolve(
                                Map.of(
                                        "web.allowed.test", web.address(),
                                        "always.allowed.test", web.address(),
                                        "denied.test", web.address(),
                                        "other.test", web.address(),
                                        "tls.allowed.test", tls.address(),
                                        "tls.denied.test", tls.address(),
                                        "tls.other.test", tls.address(),
                                        "echo.allowed.test", echo.address(),
                                        "echo2.allowed.test", echo.address()))
                        .withUpstreamCa(tlsDir.resolve("ca.pem"));
        provider = newProvider(egress);
    }

    static DockerSandboxProvider newProvider(EgressSettings egress) {
        return new DockerSandboxProvider(
                DockerSettings.builder().image(IMAGE).build(),
                SandboxLimits.defaults(),
                new DaemonThreads("test-egress"),
                Clock.systemUTC(),
                egress);
    }

    @AfterEach
    void destroySandboxes() {
        sandboxes.forEach(s -> provider.destroy(s.id()));
    }

    @AfterAll
    static void stop() {
        for (String tenant : List.of(TENANT_A, TENANT_B, TENANT_OLD, TENANT_RACE)) {
            DockerCli.run("rm", "-f", EgressGateways.gatewayName(tenant));
            DockerCli.run("network", "rm", EgressGateways.networkName(tenant));
        }
        if (provider != null) {
            provider.close();
        }
        if (web != null) {
            web.close();
        }
        if (tls != null) {
            tls.close();
        }
        if (echo != null) {
            echo.close();
        }
    }

    private static EgressRule host(String name) {
        return EgressRule.host(name);
    }

    private static SandboxCreateInput input(String tenant, EgressPolicy policy) {
        return SandboxCreateInput.defaults()
                .withKey("egress-" + UUID.randomUUID(), tenant)
                .withPolicy(
                        new SandboxPolicy(
                                SandboxPolicy.Network.EGRESS,
                                OptionalInt.empty(),
                                java.util.OptionalDouble.empty(),
                                OptionalInt.empty(),
                                List.of(),
                                policy));
    }

    private SandboxHandle sandbox(String tenant, EgressPolicy policy) {
        SandboxHandle h = provider.create(input(tenant, policy));
        sandboxes.add(h);
        return h;
    }

    private static final EgressPolicy POLICY =
            new EgressPolicy(
                    List.of(
                            host("web.allowed.test"),
                            host("tls.allowed.test"),
                            host("denied.test"),
                            host("tls.denied.test")),
                    List.of(host("denied.test"), host("tls.denied.test")));

    /** The status line of an HTTP request sent through the proxy in the sandbox's environment. */
    private static String httpStatus(SandboxHandle s, String url) {
        return s.process()
                .exec("curl -s -o /dev/null -w '%{http_code}' --max-time 10 '" + url + "'")
                .stdout();
    }

    /**
     * A TLS handshake through the proxy with {@code sni}, verified against the test CA: exit 0 only
     * if the peer is the real test host (not the gateway serving a refusal).
     */
    private static ExecResult tlsHandshake(SandboxHandle s, String connect, String sni) {
        return s.process()
                .exec(
                        "echo | timeout 10 openssl s_client -brief -verify_return_error"
                                + " -CAfile /tmp/test-ca.pem -proxy \"${HTTPS_PROXY#http://}\""
                                + " -connect "
                                + connect
                                + " -servername "
                                + sni
                                + " 2>&1");
    }

    private SandboxHandle sandboxTrustingTheTestCa(String tenant, EgressPolicy policy) {
        SandboxHandle s = sandbox(tenant, policy);
        try {
            s.fs().write("/tmp/test-ca.pem", Files.readAllBytes(tlsDir.resolve("ca.pem")));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return s;
    }

    @Test
    void anAllowedHostAnswersByNameAndEveryOtherNameOrAddressIsRefused() {
        SandboxHandle s = sandbox(TENANT_A, POLICY);
        assertThat(s.process().exec("curl -s --max-time 10 http://web.allowed.test/").stdout())
                .contains("hello-from-web");
        assertThat(httpStatus(s, "http://always.allowed.test/")).isEqualTo("200");
        assertThat(httpStatus(s, "http://other.test/")).isEqualTo("403");
        assertThat(httpStatus(s, "http://" + web.address() + "/")).isEqualTo("403");
        assertThat(httpStatus(s, "http://web.allowed.test:8080/")).isEqualTo("403");
    }

    @Test
    void denyWinsOverAllow() {
        SandboxHandle s = sandboxTrustingTheTestCa(TENANT_A, POLICY);
        assertThat(httpStatus(s, "http://web.allowed.test/")).isEqualTo("200");
        assertThat(httpStatus(s, "http://denied.test/")).isEqualTo("403");
        assertThat(tlsHandshake(s, "tls.allowed.test:443", "tls.allowed.test").exitCode()).isZero();
        assertThat(tlsHandshake(s, "tls.denied.test:443", "tls.denied.test").exitCode())
                .isNotZero();
    }

    @Test
    void httpsPassesOnlyWhenTheConnectNameAndTheSniAgree() {
        SandboxHandle s = sandboxTrustingTheTestCa(TENANT_A, POLICY);
        assertThat(
                        s.process()
                                .exec(
                                        "curl -sS --max-time 10 --cacert /tmp/test-ca.pem"
                                                + " https://tls.allowed.test/")
                                .exitCode())
                .isZero();
        ExecResult agreed = tlsHandshake(s, "tls.allowed.test:443", "tls.allowed.test");
        assertThat(agreed.exitCode()).as(agreed.stdout()).isZero();
        // an allowed CONNECT name fronting a denied or unknown SNI, and the other way round:
        // the gateway never splices them through to the real host
        assertThat(tlsHandshake(s, "tls.allowed.test:443", "tls.denied.test").exitCode())
                .isNotZero();
        assertThat(tlsHandshake(s, "tls.allowed.test:443", "tls.other.test").exitCode())
                .isNotZero();
        assertThat(tlsHandshake(s, "tls.other.test:443", "tls.allowed.test").exitCode())
                .isNotZero();
    }

    @Test
    void aConnectToAPortTheRuleDoesNotNameNeverReachesTheHost() throws Exception {
        SandboxHandle s = sandbox(TENANT_A, POLICY);
        // the port is open: the host reaches it directly
        try (java.net.Socket direct = new java.net.Socket(web.address(), 8080)) {
            direct.getOutputStream()
                    .write(
                            "GET / HTTP/1.0\r\n\r\n"
                                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            assertThat(new String(direct.getInputStream().readAllBytes()))
                    .contains("hello-from-web");
        }
        // a tunnel to it through the gateway carries nothing to or from it
        assertThat(
                        s.process()
                                .exec("curl -s --max-time 10 -p http://web.allowed.test:8080/")
                                .stdout())
                .doesNotContain("hello-from-web");
        assertThat(httpStatus(s, "http://web.allowed.test:8080/")).isEqualTo("403");
        assertThat(httpStatus(s, "http://web.allowed.test/")).isEqualTo("200");
    }

    /**
     * Sends a bare {@code CONNECT target} to the sandbox's proxy and prints what comes back before
     * any TLS byte is sent: the status line and header fields, then the body if one is announced.
     */
    private static final String CONNECT_SCRIPT =
            "p=${HTTPS_PROXY#http://}; p=${p%/}\n"
                    + "exec 3<>/dev/tcp/${p%:*}/${p##*:}\n"
                    + "printf 'CONNECT %s HTTP/1.1\\r\\nHost: %s\\r\\n\\r\\n' \"$1\" \"$1\" >&3\n"
                    + "len=0\n"
                    + "while IFS= read -r -t 10 line <&3; do\n"
                    + "  line=${line%$'\\r'}; echo \"$line\"\n"
                    + "  case $line in Content-Length:*) len=${line#*: } ;; '') break ;; esac\n"
                    + "done\n"
                    + "if [ \"$len\" -gt 0 ]; then timeout 10 head -c \"$len\" <&3; fi\n";

    private static String connectAnswer(SandboxHandle s, String target) {
        s.fs().write("/tmp/connect.sh", CONNECT_SCRIPT.getBytes(StandardCharsets.UTF_8));
        return s.process().exec("bash /tmp/connect.sh " + target).stdout();
    }

    private static String refusal(String target, String reason) {
        return "agentbox egress: " + target + " refused (" + reason + ")";
    }

    @Test
    void aConnectTheRulesRefuseIsAnswered403AtOnceNamingTheDestinationAndTheReason_EG18() {
        SandboxHandle s = sandboxTrustingTheTestCa(TENANT_A, POLICY);
        dev.agentbox.sandbox.spi.EgressAudit audit = s.egressAudit().orElseThrow();
        long start = audit.end();
        Map<String, String> refused =
                new java.util.LinkedHashMap<>(
                        Map.of(
                                "web.allowed.test:22",
                                "port not allowed",
                                web.address() + ":443",
                                "raw address",
                                "other.test:443",
                                "not allowed by the sandbox's egress policy",
                                "tls.denied.test:443",
                                "denied by the sandbox's egress policy"));
        for (Map.Entry<String, String> e : refused.entrySet()) {
            String answer = connectAnswer(s, e.getKey());
            assertThat(answer)
                    .as(e.getKey())
                    .startsWith("HTTP/1.1 403 ")
                    .containsIgnoringCase("Content-Type: text/plain")
                    .endsWith("\n\n" + refusal(e.getKey(), e.getValue()) + "\n");
        }
        // an allowed CONNECT is still established, and a tunnel through it still works
        assertThat(connectAnswer(s, "tls.allowed.test:443")).startsWith("HTTP/1.1 200 ");
        assertThat(
                        s.process()
                                .exec(
                                        "curl -sS --max-time 10 -o /dev/null -w '%{http_code}'"
                                                + " --cacert /tmp/test-ca.pem"
                                                + " https://tls.allowed.test/")
                                .stdout())
                .isEqualTo("200");
        // each refused CONNECT is recorded once, as the run's egress.denied chunks will say
        assertThat(audit.since(start).refusals())
                .containsExactlyInAnyOrder(
                        new dev.agentbox.sandbox.spi.EgressAudit.Refusal("web.allowed.test", 22),
                        new dev.agentbox.sandbox.spi.EgressAudit.Refusal(web.address(), 443),
                        new dev.agentbox.sandbox.spi.EgressAudit.Refusal("other.test", 443),
                        new dev.agentbox.sandbox.spi.EgressAudit.Refusal("tls.denied.test", 443));
    }

    @Test
    void aPlainHttpRefusalIsTheSame403WithTheSameBody_EG18() {
        SandboxHandle s = sandbox(TENANT_A, POLICY);
        for (String[] refused :
                List.of(
                        new String[] {
                            "other.test",
                            "other.test:80",
                            "not allowed by the sandbox's egress policy"
                        },
                        new String[] {
                            "web.allowed.test:8080", "web.allowed.test:8080", "port not allowed"
                        },
                        new String[] {web.address(), web.address() + ":80", "raw address"})) {
            ExecResult r =
                    s.process()
                            .exec(
                                    "curl -s -i --max-time 10 http://"
                                            + refused[0]
                                            + "/ | tr -d '\\r'");
            assertThat(r.stdout())
                    .as(refused[0])
                    .startsWith("HTTP/1.1 403 ")
                    .containsIgnoringCase("Content-Type: text/plain")
                    .endsWith("\n\n" + refusal(refused[1], refused[2]) + "\n");
        }
        assertThat(httpStatus(s, "http://web.allowed.test/")).isEqualTo("200");
    }

    @Test
    void aRefusedPortIsNeverConnectedToNorIsTheNameAndSniCheckMovedFromTheTlsStep_EG18()
            throws Exception {
        SandboxHandle s = sandboxTrustingTheTestCa(TENANT_A, POLICY);
        // a listener on the allowed host's port 22 that notes every connection it accepts
        DockerCli.ok(
                "exec",
                web.container(),
                "sh",
                "-c",
                "printf '#!/bin/sh\\necho hit >> /tmp/hits\\n' > /tmp/hit && chmod +x /tmp/hit"
                        + " && : > /tmp/hits");
        DockerCli.ok("exec", "-d", web.container(), "nc", "-ll", "-p", "22", "-e", "/tmp/hit");
        // the control: the host reaches it directly
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (java.net.Socket direct = new java.net.Socket(web.address(), 22)) {
                break;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
        assertThat(waitForHits(1)).isEqualTo(1);

        assertThat(connectAnswer(s, "web.allowed.test:22")).startsWith("HTTP/1.1 403 ");
        assertThat(httpStatus(s, "http://web.allowed.test:22/")).isEqualTo("403");
        Thread.sleep(1000);
        assertThat(waitForHits(1)).as("connections the listener accepted").isEqualTo(1);

        // CONNECT name and TLS name disagree: the CONNECT is established, the TLS step refuses
        assertThat(connectAnswer(s, "tls.allowed.test:443")).startsWith("HTTP/1.1 200 ");
        ExecResult fronted = tlsHandshake(s, "tls.allowed.test:443", "tls.other.test");
        assertThat(fronted.exitCode()).as(fronted.stdout()).isNotZero();
        assertThat(fronted.stdout())
                .as("failed in TLS, not at the CONNECT")
                .contains("SSL routines");
    }

    /**
     * How many connections the listener on {@code web}'s port 22 noted, once it noted {@code n}.
     */
    private static int waitForHits(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        int hits;
        do {
            String out = DockerCli.run("exec", web.container(), "cat", "/tmp/hits").out();
            hits = (int) out.lines().filter("hit"::equals).count();
            if (hits >= n) {
                return hits;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        return hits;
    }

    @Test
    void withoutTheProxyThereIsNoRouteOutAtAll() {
        SandboxHandle s = sandbox(TENANT_A, POLICY);
        assertThat(httpStatus(s, "http://web.allowed.test/")).isEqualTo("200");
        // unset proxy variables: the same allowed host by its address, TCP and UDP
        ExecResult direct =
                s.process()
                        .exec(
                                "env -u HTTP_PROXY -u http_proxy -u HTTPS_PROXY -u https_proxy"
                                        + " curl -s --max-time 5 http://"
                                        + web.address()
                                        + "/");
        assertThat(direct.exitCode()).isNotZero();
        assertThat(direct.stdout()).doesNotContain("hello-from-web");
        // UDP to the same address: not one packet reaches the outside host's link, while the
        // same packets sent by the host do
        long before = web.packetsIn();
        s.process()
                .exec(
                        "bash -c 'for i in $(seq 1 20); do echo probe > /dev/udp/"
                                + web.address()
                                + "/5300; done' 2>&1");
        long fromSandbox = web.packetsIn() - before;
        try (java.net.DatagramSocket udp = new java.net.DatagramSocket()) {
            byte[] probe = "probe".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            for (int i = 0; i < 20; i++) {
                udp.send(
                        new java.net.DatagramPacket(
                                probe,
                                probe.length,
                                java.net.InetAddress.getByName(web.address()),
                                5300));
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        assertThat(web.packetsIn() - before - fromSandbox)
                .as("control from the host")
                .isGreaterThanOrEqualTo(20);
        assertThat(fromSandbox).as("packets from the sandbox").isZero();
        // ICMP needs a raw or ping socket: no NET_RAW, and ping sockets are off
        assertThat(s.process().exec("grep CapEff /proc/self/status").stdout())
                .doesNotContain("0000003fffffffff");
        assertThat(s.process().exec("cat /proc/sys/net/ipv4/ping_group_range").stdout().trim())
                .isEqualTo("1\t0");
        // IPv6: no address beyond loopback and link-local, so no IPv6 route anywhere
        assertThat(
                        s.process()
                                .exec(
                                        "cat /proc/net/if_inet6 2>/dev/null | grep -v ' lo$'"
                                                + " | grep -vc '^fe80' || true")
                                .stdout()
                                .trim())
                .isEqualTo("0");
    }

    @Test
    void dnsAnswersOnlyAllowedNames() {
        SandboxHandle s = sandbox(TENANT_A, POLICY);
        assertThat(s.process().exec("getent hosts web.allowed.test").stdout())
                .contains(web.address());
        assertThat(s.process().exec("getent hosts other.test").exitCode()).isNotZero();
        assertThat(s.process().exec("getent hosts anything.example").exitCode()).isNotZero();
        // a TXT query for a name nobody allowed ("tunnelling"): the gateway refuses to forward
        String rcode =
                s.process()
                        .exec(
                                "bash -c \"exec 3<>/dev/udp/127.0.0.11/53;"
                                        + " printf '\\x12\\x34\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00"
                                        + "\\x04leak\\x07example\\x00\\x00\\x10\\x00\\x01' >&3;"
                                        + " timeout 5 head -c 4 <&3 | od -An -tx1 | awk '{print \\$4}'\"")
                        .stdout()
                        .trim();
        assertThat(rcode)
                .as("DNS flags byte: REFUSED or SERVFAIL, never an answer")
                .isIn("05", "02", "85", "82");
    }

    @Test
    void theGatewaysAdminSurfaceIsClosed() {
        SandboxHandle s = sandbox(TENANT_A, POLICY);
        assertThat(httpStatus(s, "http://web.allowed.test/")).isEqualTo("200");
        String gateway = EgressGateways.gatewayName(TENANT_A);
        assertThat(httpStatus(s, "http://" + gateway + ":3128/squid-internal-mgr/info"))
                .isEqualTo("403");
        assertThat(httpStatus(s, "cache_object://" + gateway + "/info")).isNotEqualTo("200");
    }

    @Test
    void anotherTenantsSandboxGetsNoneOfTheseRulesAndCannotReachThisGateway() {
        SandboxHandle a = sandbox(TENANT_A, POLICY);
        SandboxHandle b = sandbox(TENANT_B, EgressPolicy.empty());
        assertThat(httpStatus(a, "http://web.allowed.test/")).isEqualTo("200");
        assertThat(httpStatus(b, "http://web.allowed.test/")).isEqualTo("403");
        assertThat(httpStatus(b, "http://always.allowed.test/")).isEqualTo("200");
        String gatewayA = EgressGateways.gatewayName(TENANT_A);
        assertThat(
                        b.process()
                                .exec(
                                        "curl -s -o /dev/null -w '%{http_code}' --max-time 5 -x http://"
                                                + gatewayA
                                                + ":3128 http://web.allowed.test/")
                                .stdout())
                .isNotEqualTo("200");
    }

    @Test
    void aSandboxsRulesRefusalsAndBrokeredSecretsLeaveTheGatewayWithIt() {
        SandboxHandle s = sandbox(TENANT_A, POLICY);
        String gateway = EgressGateways.gatewayName(TENANT_A);
        brokerOneSecret(s, "sk-test-" + UUID.randomUUID(), "web.allowed.test");
        assertThat(httpStatus(s, "http://denied.test/")).isEqualTo("403");
        String stem = stemOf(gateway, s);
        assertThat(inGateway(gateway, "ls " + SECRETS + stem + " " + DENIED + stem).exitCode())
                .as("a brokered secret and a refusal recorded")
                .isZero();

        provider.destroy(s.id());
        sandboxes.remove(s);

        assertThat(inGateway(gateway, "grep -l " + s.id() + " " + RULES + "*.rules").exitCode())
                .as("rules naming the sandbox")
                .isNotZero();
        for (String left : List.of(RULES + stem + ".dns", SECRETS + stem, DENIED + stem)) {
            assertThat(inGateway(gateway, "test -e " + left).exitCode()).as(left).isNotZero();
        }
    }

    @Test
    void aReleaseWhileANewerSandboxIsBeingAppliedAtTheSameAddressLeavesTheNewerOnesFiles() {
        SandboxHandle s = sandbox(TENANT_A, POLICY);
        String gateway = EgressGateways.gatewayName(TENANT_A);
        brokerOneSecret(s, "sk-test-" + UUID.randomUUID(), "web.allowed.test");
        String stem = stemOf(gateway, s);
        // The address was freed and taken by a newer sandbox whose apply has written its files
        // but not yet renamed its rules: the same step as ContainerFactory's apply, by hand.
        DockerCli.ok(
                "exec",
                gateway,
                "sh",
                "-c",
                "printf '# agentbox sandbox newer\\n' > "
                        + RULES
                        + stem
                        + ".rules.next && printf 'newer.allowed.test\\n' > "
                        + RULES
                        + stem
                        + ".dns");
        try {
            provider.destroy(s.id());
            sandboxes.remove(s);

            assertThat(DockerCli.ok("exec", gateway, "cat", RULES + stem + ".dns"))
                    .as("the newer sandbox's DNS names")
                    .isEqualTo("newer.allowed.test");
            assertThat(inGateway(gateway, "test -e " + RULES + stem + ".rules.next").exitCode())
                    .isZero();
            assertThat(inGateway(gateway, "test -e " + SECRETS + stem).exitCode())
                    .as("the released sandbox's secret")
                    .isNotZero();
        } finally {
            inGateway(
                    gateway, "cd " + RULES + " && rm -f " + stem + ".* && agentbox-egress reload");
        }
    }

    private static final String RULES = "/etc/agentbox-egress/sandboxes/";
    private static final String SECRETS = "/run/agentbox-egress/secrets/";
    private static final String DENIED = "/run/agentbox-egress/denied/";

    private static DockerCli.Result inGateway(String gateway, String script) {
        return DockerCli.run("exec", gateway, "sh", "-c", script);
    }

    /** The stem of {@code s}'s files in its gateway: the name of the rules file that names it. */
    private static String stemOf(String gateway, SandboxHandle s) {
        String file =
                DockerCli.ok(
                        "exec",
                        gateway,
                        "sh",
                        "-c",
                        "grep -lx '# agentbox sandbox " + s.id() + "' " + RULES + "*.rules");
        return file.substring(RULES.length(), file.length() - ".rules".length());
    }

    /** Gives {@code s} the brokered secret {@code API_KEY}, {@code value} for {@code host} only. */
    private static void brokerOneSecret(SandboxHandle s, String value, String host) {
        dev.agentbox.sandbox.SandboxSecrets.install(
                s,
                new dev.agentbox.sandbox.SandboxSpec.Workspace(
                        new dev.agentbox.sandbox.SandboxSpec.NoSource(),
                        List.of(),
                        Map.of(),
                        Map.of(),
                        Map.of(
                                "API_KEY",
                                new dev.agentbox.sandbox.spi.BrokeredSecret(
                                        value, List.of(host)))));
    }

    @Test
    void egressKeepsWorkingWhenTheServerThatMadeTheSandboxIsGone() {
        DockerSandboxProvider first = newProvider(provider.gateways().settings());
        SandboxHandle s = first.create(input(TENANT_A, POLICY));
        first.close();
        SandboxHandle again = provider.resume(s.id()).orElseThrow();
        sandboxes.add(again);
        assertThat(httpStatus(again, "http://web.allowed.test/")).isEqualTo("200");
    }

    @Test
    void everyRefusalIsRecordedForTheSandboxThatMadeItAndReadOnceByPosition() {
        SandboxHandle s = sandboxTrustingTheTestCa(TENANT_A, POLICY);
        SandboxHandle quiet = sandbox(TENANT_A, POLICY);
        dev.agentbox.sandbox.spi.EgressAudit audit = s.egressAudit().orElseThrow();
        long start = audit.end();
        assertThat(httpStatus(s, "http://web.allowed.test/")).isEqualTo("200");
        assertThat(httpStatus(s, "http://other.test/")).isEqualTo("403");
        assertThat(tlsHandshake(s, "tls.allowed.test:443", "tls.denied.test").exitCode())
                .isNotZero();
        dev.agentbox.sandbox.spi.EgressAudit.Refusals r = audit.since(start);
        assertThat(r.refusals())
                .containsExactly(
                        new dev.agentbox.sandbox.spi.EgressAudit.Refusal("other.test", 80),
                        new dev.agentbox.sandbox.spi.EgressAudit.Refusal("tls.denied.test", 443));
        assertThat(audit.since(r.next()).refusals()).isEmpty();
        assertThat(quiet.egressAudit().orElseThrow().since(0).refusals()).isEmpty();
    }

    private static final String PLACEHOLDER = "agentbox-brokered-[0-9a-f]{40}";

    /** Runs {@code command} with the sandbox's secrets file sourced, as every API command is. */
    private static ExecResult withSecrets(SandboxHandle s, String command) {
        return s.process().exec("for f in /dev/shm/agentbox/*.env; do . \"$f\"; done; " + command);
    }

    private static List<String> echoed() throws IOException {
        return echo.seen();
    }

    @Test
    void aBrokeredSecretNeverEntersTheSandboxAndReachesOnlyItsHostsCredentialHeaders()
            throws Exception {
        EgressPolicy policy =
                new EgressPolicy(
                        List.of(host("echo.allowed.test"), host("echo2.allowed.test")), List.of());
        SandboxHandle s = sandboxTrustingTheTestCa(TENANT_A, policy);
        String value = "sk-test-" + UUID.randomUUID();
        dev.agentbox.sandbox.SandboxSecrets.install(
                s,
                new dev.agentbox.sandbox.SandboxSpec.Workspace(
                        new dev.agentbox.sandbox.SandboxSpec.NoSource(),
                        List.of(),
                        Map.of(),
                        Map.of("PLAIN", "p"),
                        Map.of(
                                "API_KEY",
                                new dev.agentbox.sandbox.spi.BrokeredSecret(
                                        value, List.of("echo.allowed.test")))));
        String placeholder = withSecrets(s, "printf %s \"$API_KEY\"").stdout();
        assertThat(placeholder).matches(PLACEHOLDER);
        assertThat(withSecrets(s, "printf %s \"$PLAIN\"").stdout()).isEqualTo("p");
        // HTTPS (terminated at the gateway with the installation's CA, which the sandbox trusts)
        // and HTTP, in both credential headers
        int before = echoed().size();
        ExecResult https =
                withSecrets(
                        s,
                        "curl -sS --max-time 10 -H \"Authorization: Bearer $API_KEY\""
                                + " https://echo.allowed.test/");
        assertThat(https.stdout()).as(https.stderr()).contains("recorded");
        assertThat(
                        withSecrets(
                                        s,
                                        "curl -sS --max-time 10 -H \"x-api-key: $API_KEY\""
                                                + " http://echo.allowed.test/")
                                .stdout())
                .contains("recorded");
        // the same placeholder towards a host it is not brokered to stays a placeholder
        assertThat(
                        withSecrets(
                                        s,
                                        "curl -sS --max-time 10 -H \"Authorization: Bearer $API_KEY\""
                                                + " --cacert /tmp/test-ca.pem https://echo2.allowed.test/")
                                .stdout())
                .contains("recorded");
        // an allowed (brokered, so terminated) SNI carrying a Host the same rule does not cover
        assertThat(
                        withSecrets(
                                        s,
                                        "curl -s -o /dev/null -w '%{http_code}' --max-time 10"
                                                + " -H \"Authorization: Bearer $API_KEY\""
                                                + " -H 'Host: echo2.allowed.test'"
                                                + " https://echo.allowed.test/")
                                .stdout())
                .isEqualTo("403");
        List<String> seen = echoed().subList(before, echoed().size());
        assertThat(seen).hasSize(3);
        assertThat(seen.get(0)).contains("\"authorization\":\"Bearer " + value + "\"");
        assertThat(seen.get(1)).contains("\"apiKey\":\"" + value + "\"");
        assertThat(seen.get(2))
                .contains("\"authorization\":\"Bearer " + placeholder + "\"")
                .doesNotContain(value);
        // nowhere in the sandbox: environment, files, processes
        // nowhere in the sandbox: environment, files, processes (the pattern is written so
        // that the grep's own command line does not hold the value)
        String pattern = value.replaceFirst("-", "[-]");
        assertThat(
                        withSecrets(
                                        s,
                                        "grep -rls -e '"
                                                + pattern
                                                + "' /proc/[0-9]*/environ /proc/[0-9]*/cmdline"
                                                + " /dev/shm /etc /tmp /workspace /root 2>/dev/null;"
                                                + " env | grep -c -e '"
                                                + pattern
                                                + "' || true")
                                .stdout()
                                .strip())
                .isEqualTo("0");
        // nor in what the engine shows of the sandbox and its gateway, nor in the gateway's logs
        String gateway = EgressGateways.gatewayName(TENANT_A);
        assertThat(DockerCli.ok("inspect", s.id())).doesNotContain(value);
        assertThat(DockerCli.ok("inspect", gateway)).doesNotContain(value);
        assertThat(DockerCli.run("logs", gateway).out()).doesNotContain(value);
        assertThat(
                        DockerCli.run(
                                        "exec", gateway, "grep", "-rl", "--", value, "/etc", "/var",
                                        "/tmp")
                                .out())
                .isBlank();
    }

    @Test
    void aPlaceholderMeansNothingInAnotherTenantsSandbox() throws Exception {
        EgressPolicy policy = new EgressPolicy(List.of(host("echo.allowed.test")), List.of());
        SandboxHandle a = sandbox(TENANT_A, policy);
        SandboxHandle b = sandboxTrustingTheTestCa(TENANT_B, policy);
        String value = "sk-test-" + UUID.randomUUID();
        brokerOneSecret(a, value, "echo.allowed.test");
        String placeholder = withSecrets(a, "printf %s \"$API_KEY\"").stdout();
        int before = echoed().size();
        assertThat(
                        b.process()
                                .exec(
                                        "curl -sS --max-time 10 -H 'Authorization: Bearer "
                                                + placeholder
                                                + "' --cacert /tmp/test-ca.pem https://echo.allowed.test/")
                                .stdout())
                .as("the other tenant's sandbox reaches the host (with the CA)")
                .contains("recorded");
        List<String> seen = echoed().subList(before, echoed().size());
        assertThat(seen).hasSize(1);
        assertThat(seen.get(0)).contains(placeholder).doesNotContain(value);
    }

    @Test
    void aGatewayMadeAgainGivesTheRunningSandboxesTheirRulesBack() {
        SandboxHandle s = sandbox(TENANT_A, POLICY);
        assertThat(httpStatus(s, "http://web.allowed.test/")).isEqualTo("200");
        String gateway = EgressGateways.gatewayName(TENANT_A);
        DockerCli.ok("rm", "-f", gateway);
        assertThat(httpStatus(s, "http://web.allowed.test/"))
                .as("no gateway, no way out")
                .isNotEqualTo("200");
        // the tenant's next egress ensure makes the gateway again, and with it the rules
        SandboxHandle next =
                sandbox(TENANT_A, new EgressPolicy(List.of(host("tls.allowed.test")), List.of()));
        assertThat(s.process().exec("curl -s --max-time 10 http://web.allowed.test/").stdout())
                .contains("hello-from-web");
        assertThat(httpStatus(s, "http://other.test/")).isEqualTo("403");
        assertThat(httpStatus(s, "http://denied.test/")).isEqualTo("403");
        assertThat(httpStatus(next, "http://web.allowed.test/"))
                .as("the new sandbox has its own rules, not the restored ones")
                .isEqualTo("403");
        assertThat(httpStatus(next, "http://always.allowed.test/")).isEqualTo("200");
    }

    @Test
    @DisplayName(
            "EG-20 a gateway removed under a running sandbox is made again by the sandbox's refusal reader, and this server gives it the brokered values it holds")
    void aGatewayMadeAgainGetsBackTheBrokeredValuesThisServerHolds_EG20() throws Exception {
        SandboxHandle s =
                sandbox(TENANT_A, new EgressPolicy(List.of(host("echo.allowed.test")), List.of()));
        String value = "sk-test-" + UUID.randomUUID();
        brokerOneSecret(s, value, "echo.allowed.test");
        dev.agentbox.sandbox.spi.EgressAudit audit = s.egressAudit().orElseThrow();
        assertThat(audit.since(0).secretsHeld()).isTrue();
        DockerCli.ok("rm", "-f", EgressGateways.gatewayName(TENANT_A));

        dev.agentbox.sandbox.spi.EgressAudit.Refusals read = audit.since(0);
        assertThat(read.secretsHeld()).as("a gateway made again holds no secrets").isFalse();
        assertThat(s.restoreBrokered(dev.agentbox.sandbox.SandboxSecrets.brokeredNames(s)))
                .containsExactly("API_KEY");
        assertThat(audit.since(read.next()).secretsHeld()).isTrue();
        int before = echoed().size();
        ExecResult https =
                withSecrets(
                        s,
                        "curl -sS --max-time 10 -H \"Authorization: Bearer $API_KEY\""
                                + " https://echo.allowed.test/");
        assertThat(https.stdout()).as(https.stderr()).contains("recorded");
        List<String> seen = echoed().subList(before, echoed().size());
        assertThat(seen).hasSize(1);
        assertThat(seen.get(0)).contains("\"authorization\":\"Bearer " + value + "\"");
    }

    @Test
    @DisplayName(
            "EG-21 a gateway made again by a server that never held the value refuses the placeholder with a 502 naming the variable and host, and records it for the run")
    void aPlaceholderWhoseValueNoServerHoldsIsRefusedNamingItsVariable_EG21() throws Exception {
        SandboxHandle s =
                sandboxTrustingTheTestCa(
                        TENANT_A, new EgressPolicy(List.of(host("echo.allowed.test")), List.of()));
        String value = "sk-test-" + UUID.randomUUID();
        brokerOneSecret(s, value, "echo.allowed.test");
        DockerCli.ok("rm", "-f", EgressGateways.gatewayName(TENANT_A));
        // another server, which never saw the value, notices the gateway is gone
        DockerSandboxProvider other = newProvider(provider.gateways().settings());
        try {
            SandboxHandle there = other.resume(s.id()).orElseThrow();
            dev.agentbox.sandbox.spi.EgressAudit audit = there.egressAudit().orElseThrow();
            long from = audit.since(0).next();
            assertThat(there.restoreBrokered(dev.agentbox.sandbox.SandboxSecrets.brokeredNames(s)))
                    .isEmpty();
            int before = echoed().size();
            for (String url : List.of("https://echo.allowed.test/", "http://echo.allowed.test/")) {
                ExecResult r =
                        withSecrets(
                                s,
                                "curl -sS --max-time 10 -w '\\n%{http_code}'"
                                        + " -H \"Authorization: Bearer $API_KEY\" "
                                        + url);
                assertThat(r.stdout())
                        .as(url)
                        .contains("brokered secret API_KEY has no value here for echo.allowed.test")
                        .endsWith("502");
            }
            assertThat(echoed().subList(before, echoed().size()))
                    .as("nothing reached the host")
                    .isEmpty();
            assertThat(audit.since(from).refusals())
                    .contains(
                            new dev.agentbox.sandbox.spi.EgressAudit.Refusal(
                                    "echo.allowed.test", 443, "API_KEY"),
                            new dev.agentbox.sandbox.spi.EgressAudit.Refusal(
                                    "echo.allowed.test", 80, "API_KEY"));
            // a request without the placeholder still passes
            assertThat(
                            s.process()
                                    .exec("curl -sS --max-time 10 http://echo.allowed.test/")
                                    .stdout())
                    .contains("recorded");
        } finally {
            other.close();
        }
    }

    @Test
    void aStoppedEgressSandboxGetsItsRulesAgainWhenItIsResumed() {
        SandboxHandle s = sandbox(TENANT_A, POLICY);
        assertThat(httpStatus(s, "http://web.allowed.test/")).isEqualTo("200");
        String gateway = EgressGateways.gatewayName(TENANT_A);
        DockerCli.ok("stop", "-t", "1", s.id());
        // as if the gateway had been made anew: it knows nothing of the sandbox any more
        DockerCli.ok("exec", gateway, "sh", "-c", "rm -f /etc/agentbox-egress/sandboxes/*.rules");
        SandboxHandle resumed = provider.resume(s.id()).orElseThrow();
        assertThat(httpStatus(resumed, "http://web.allowed.test/")).isEqualTo("200");
        assertThat(httpStatus(resumed, "http://other.test/")).isEqualTo("403");
    }

    @Test
    void aGatewayMadeAgainKeepsItsAddressSoASandboxMadeBeforeReachesItsProxyAgain() {
        SandboxHandle s = sandbox(TENANT_A, POLICY);
        String gateway = EgressGateways.gatewayName(TENANT_A);
        String network = EgressGateways.networkName(TENANT_A);
        String address = "{{(index .NetworkSettings.Networks \"" + network + "\").IPAddress}}";
        String before = DockerCli.ok("inspect", "-f", address, gateway).strip();
        // the proxy is named by that address, not looked up by name on every request
        assertThat(s.process().exec("printenv HTTP_PROXY HTTPS_PROXY").stdout().lines())
                .containsExactly("http://" + before + ":3128", "http://" + before + ":3128");
        // sandboxes get addresses only from the network's ip-range, which leaves the gateway's out
        String range =
                DockerCli.ok(
                                "network",
                                "inspect",
                                "-f",
                                "{{(index .IPAM.Config 0).IPRange}}",
                                network)
                        .strip();
        assertThat(range).isNotEmpty();
        assertThat(DockerCli.ok("inspect", "-f", address, s.id()).strip()).isNotEqualTo(before);
        DockerCli.ok("stop", "-t", "1", s.id());
        DockerCli.ok("rm", "-f", gateway);
        SandboxHandle resumed = provider.resume(s.id()).orElseThrow();
        assertThat(DockerCli.ok("inspect", "-f", address, gateway).strip()).isEqualTo(before);
        assertThat(httpStatus(resumed, "http://web.allowed.test/")).isEqualTo("200");
        assertThat(httpStatus(resumed, "http://other.test/")).isEqualTo("403");
        assertThat(resumed.process().exec("getent hosts web.allowed.test").stdout())
                .contains(web.address());
    }

    @Test
    void onANetworkMadeBeforeAddressesWereReservedTheProxyIsStillNamedByTheGatewaysName() {
        String network = EgressGateways.networkName(TENANT_OLD);
        // as an older version made it: no subnet of its own, no label, dynamic addresses only
        DockerCli.ok(
                "network",
                "create",
                "--internal",
                "--driver",
                "bridge",
                "-o",
                "com.docker.network.bridge.name=abr-" + EgressGateways.hash(TENANT_OLD),
                "--label",
                "dev.agentbox.network=egress-internal",
                network);
        SandboxHandle s = sandbox(TENANT_OLD, POLICY);
        String gateway = EgressGateways.gatewayName(TENANT_OLD);
        assertThat(s.process().exec("printenv HTTP_PROXY").stdout().strip())
                .isEqualTo("http://" + gateway + ":3128");
        assertThat(httpStatus(s, "http://web.allowed.test/")).isEqualTo("200");
        assertThat(httpStatus(s, "http://other.test/")).isEqualTo("403");
    }

    @Test
    void serversMakingANewTenantsGatewayAtOnceShareOneNetworkWithTheGatewayAtItsReservedAddress()
            throws Exception {
        DockerSandboxProvider other = newProvider(provider.gateways().settings());
        java.util.concurrent.ExecutorService pool =
                java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
            List<java.util.concurrent.Future<EgressGateways.Gateway>> made = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                DockerSandboxProvider p = i % 2 == 0 ? provider : other;
                made.add(
                        pool.submit(
                                () -> {
                                    go.await();
                                    return p.gateways().ensure(TENANT_RACE);
                                }));
            }
            go.countDown();
            java.util.Set<EgressGateways.Gateway> seen = new java.util.HashSet<>();
            for (java.util.concurrent.Future<EgressGateways.Gateway> f : made) {
                seen.add(f.get(120, TimeUnit.SECONDS));
            }
            assertThat(seen).hasSize(1);
            EgressGateways.Gateway gw = seen.iterator().next();
            assertThat(gw.addressFixed()).isTrue();
            assertThat(gw.proxyUrl()).isEqualTo("http://" + gw.address() + ":3128");
            assertThat(
                            DockerCli.ok(
                                            "network",
                                            "inspect",
                                            "-f",
                                            "{{index .Labels \"" + GatewayAddress.LABEL + "\"}}",
                                            gw.network())
                                    .strip())
                    .isEqualTo(gw.address());
        } finally {
            pool.shutdownNow();
            other.close();
        }
    }
}
