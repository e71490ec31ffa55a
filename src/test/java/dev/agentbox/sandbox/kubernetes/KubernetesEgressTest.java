package dev.agentbox.sandbox.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.agentbox.it.DockerCli;
import dev.agentbox.it.EchoHost;
import dev.agentbox.it.OutsideHost;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.egress.EgressSettings;
import dev.agentbox.sandbox.egress.GatewayRules;
import dev.agentbox.sandbox.spi.BrokeredSecret;
import dev.agentbox.sandbox.spi.EgressAudit;
import dev.agentbox.sandbox.spi.EgressPolicy;
import dev.agentbox.sandbox.spi.EgressRule;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import dev.agentbox.testing.NeedsDocker;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Egress pods behind the egress gateway (docs/kubernetes.md, "Egress"; EG-11..EG-16): the mock API
 * server holds the objects; the gateway pod is a container of the real gateway image running this
 * build's helper beside Squid and dnsmasq, as deploy/kubernetes/egress-gateway.yaml runs it, at an
 * address that is both its pod IP and its Service's cluster IP; sandbox pods are containers of
 * their own ({@link PodContainers}) whose only DNS server is the gateway. The "internet" is an
 * {@link OutsideHost} this test starts, reached by names the operator pins ({@code
 * agentbox.egress.resolve}); nothing leaves the machine.
 *
 * <p>What this cannot show: that an egress pod has no other way out. Here its container is on
 * Docker's bridge and could go around the gateway; on a cluster the pod's NetworkPolicy (made and
 * checked in SandboxNetworkPolicyTest) is what closes that, if the network plugin enforces it.
 */
@NeedsDocker
@EnableKubernetesMockClient(crud = true)
class KubernetesEgressTest {

    private static final String NS = "sandboxes-egress";

    static KubernetesClient client;
    static KubernetesMockServer server;

    static final Logger QUIET = MockServerLogs.quiet();

    private static OutsideHost web;
    private static Path tlsDir;
    private static EchoHost echo;
    private static Path operatorCa;
    private static GatewayPodFixture gateway;
    private static PodContainers pods;
    private static KubernetesSandboxProvider provider;

    private final List<SandboxHandle> made = new ArrayList<>();
    private String run;

    @BeforeAll
    static void gatewayAndInternet() throws Exception {
        tlsDir = Files.createTempDirectory("k8s-egress-tls");
        EchoHost.tls(tlsDir, "echo.allowed.test", "echo2.allowed.test");
        echo = EchoHost.start(tlsDir);
        // the installation's CA as an operator gives it (the Secret agentbox-egress-ca)
        operatorCa = Files.createTempDirectory("k8s-egress-ca");
        EchoHost.tls(operatorCa, "unused.test");
        web =
                OutsideHost.start(
                        "agentbox/sandbox:busybox",
                        "mkdir -p /www && echo hello-from-web > /www/index.html"
                                + " && httpd -f -p 80 -h /www");
        gateway = GatewayPodFixture.start(client, NS, Optional.of(operatorCa));
        pods = PodContainers.start(client, NS);
        provider = provider(KubernetesSettings.Network.defaults().withEgress(true));
    }

    static KubernetesSandboxProvider provider(KubernetesSettings.Network network) {
        return new KubernetesSandboxProvider(
                KubernetesSettings.defaults()
                        .withNamespace(NS)
                        .withReadyTimeout(Duration.ofSeconds(60))
                        .withNetwork(network),
                EgressSettings.defaults()
                        .withResolve(
                                Map.of(
                                        "a.allowed.test", web.address(),
                                        "b.allowed.test", web.address(),
                                        "denied.test", web.address(),
                                        "echo.allowed.test", echo.address(),
                                        "echo2.allowed.test", echo.address()))
                        .withUpstreamCa(tlsDir.resolve("ca.pem")),
                client);
    }

    @AfterAll
    static void stop() throws Exception {
        if (provider != null) {
            provider.close();
        }
        if (pods != null) {
            pods.close();
        }
        if (gateway != null) {
            gateway.close();
        }
        if (web != null) {
            web.close();
        }
        if (echo != null) {
            echo.close();
        }
    }

    @BeforeEach
    void name() {
        run = "eg" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void destroy() {
        made.forEach(h -> provider.destroy(h.id()));
    }

    private SandboxHandle egressPod(String tenant, String... allowed) {
        SandboxHandle h =
                provider.create(
                        SandboxCreateInput.defaults()
                                .withRequestedId(run + "-" + tenant)
                                .withKey(run, tenant)
                                .withPolicy(
                                        SandboxPolicy.defaults()
                                                .withNetwork(SandboxPolicy.Network.EGRESS)
                                                .withEgress(
                                                        new EgressPolicy(
                                                                java.util.Arrays.stream(allowed)
                                                                        .map(EgressRule::host)
                                                                        .toList(),
                                                                List.of()))));
        made.add(h);
        return h;
    }

    private static String status(SandboxHandle h, String host) {
        return h.process()
                .exec("curl -s -o /dev/null -w '%{http_code}' --max-time 10 http://" + host + "/")
                .stdout();
    }

    private static String ip(SandboxHandle h) {
        return client.pods().inNamespace(NS).withName(h.id()).get().getStatus().getPodIP();
    }

    @Test
    void anEgressPodReachesWhatItsPolicyAllowsThroughTheGatewayAndItsDnsAnswersOnlyThat() {
        SandboxHandle a = egressPod("tenant-a", "a.allowed.test");

        assertThat(a.process().exec("curl -s --max-time 10 http://a.allowed.test/").stdout())
                .isEqualTo("hello-from-web\n");
        assertThat(status(a, "denied.test")).isEqualTo("403");
        assertThat(a.process().exec("printenv HTTP_PROXY").stdout().strip())
                .isEqualTo("http://" + gateway.ip() + ":3128");
        // DNS: the gateway answers the allowed name (pinned) and refuses every other
        assertThat(a.process().exec("getent hosts a.allowed.test").stdout())
                .startsWith(web.address() + " ");
        assertThat(a.process().exec("getent hosts denied.test").exitCode()).isNotZero();
        // the rules are keyed by the pod's IP and name the pod; the pod keeps them for a restore
        assertThat(gateway.rulesFor(ip(a)).orElseThrow())
                .startsWith("# agentbox sandbox " + a.id() + "\n");
        assertThat(
                        client.pods()
                                .inNamespace(NS)
                                .withName(a.id())
                                .get()
                                .getMetadata()
                                .getAnnotations())
                .containsKey(SandboxObjects.EGRESS);
    }

    @Test
    void aBrokeredSecretIsSwappedInByTheGatewayForItsHostOnlyAndThePodHoldsOnlyThePlaceholder()
            throws Exception {
        SandboxHandle a = egressPod("tenant-a", "echo.allowed.test", "echo2.allowed.test");
        String placeholder = "agentbox-brokered-" + "ab".repeat(20);
        String value = "sk-real-" + UUID.randomUUID();

        a.brokerSecrets(
                Map.of(placeholder, new BrokeredSecret(value, List.of("echo.allowed.test"))));
        // TLS to the brokered host is the gateway's, signed by the installation's CA, which the
        // pod trusts through its bundle; the other host's is the real one (the test CA's), spliced
        a.fs().write("/tmp/test-ca.pem", Files.readAllBytes(tlsDir.resolve("ca.pem")));
        for (String target :
                List.of(
                        "https://echo.allowed.test/",
                        "--cacert /tmp/test-ca.pem https://echo2.allowed.test/")) {
            assertThat(
                            a.process()
                                    .exec(
                                            "curl -s --max-time 10 -H 'Authorization: Bearer "
                                                    + placeholder
                                                    + "' "
                                                    + target)
                                    .stdout())
                    .as(target)
                    .isEqualTo("recorded\n");
        }

        // the CA the pod trusts is the operator's, which the gateway took
        assertThat(a.process().exec("cat " + PodEgress.POD_CA).stdout())
                .isEqualTo(Files.readString(operatorCa.resolve("ca.pem")));
        assertThat(echo.seen())
                .anySatisfy(
                        l ->
                                assertThat(l)
                                        .contains("\"host\":\"echo.allowed.test\"")
                                        .contains("Bearer " + value))
                .anySatisfy(
                        l ->
                                assertThat(l)
                                        .contains("\"host\":\"echo2.allowed.test\"")
                                        .contains("Bearer " + placeholder)
                                        .doesNotContain(value));
        assertThat(
                        a.process()
                                .exec(
                                        "env; cat /proc/*/environ 2>/dev/null; grep -rs . /tmp"
                                                + " /workspace 2>/dev/null")
                                .stdout())
                .doesNotContain(value);

        SandboxHandle none =
                provider.create(
                        SandboxCreateInput.defaults()
                                .withRequestedId(run + "-none")
                                .withKey(run, "tenant-a"));
        made.add(none);
        assertThatThrownBy(
                        () ->
                                none.brokerSecrets(
                                        Map.of(
                                                placeholder,
                                                new BrokeredSecret(
                                                        value, List.of("echo.allowed.test")))))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> {
                            assertThat(e.code()).isEqualTo(ProblemCode.INVALID_REQUEST);
                            assertThat(e.extensions()).containsEntry("field", "workspace.secrets");
                        });
    }

    @Test
    void anEgressPodsRefusalsAreReadFromTheGatewayFromWhereTheReaderStarted() {
        SandboxHandle a = egressPod("tenant-a", "a.allowed.test");
        assertThat(status(a, "b.allowed.test")).isEqualTo("403"); // before the reader: not its own
        EgressAudit audit = a.egressAudit().orElseThrow();
        long from = audit.end();

        assertThat(status(a, "denied.test")).isEqualTo("403");
        assertThat(status(a, "a.allowed.test")).isEqualTo("200");
        EgressAudit.Refusals read = audit.since(from);

        assertThat(read.refusals()).containsExactly(new EgressAudit.Refusal("denied.test", 80));
        assertThat(audit.since(read.next()).refusals()).isEmpty();
    }

    @Test
    void theRefusalReadersOfManyRunsShareOneRecentListingOfTheGatewayPods() throws Exception {
        SandboxHandle a = egressPod("tenant-a", "a.allowed.test");
        List<EgressAudit> readers = new ArrayList<>();
        List<Long> from = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            EgressAudit audit = a.egressAudit().orElseThrow();
            readers.add(audit);
            from.add(audit.end());
        }
        assertThat(status(a, "denied.test")).isEqualTo("403");
        gatewayListings(); // what came before the reads
        long started = System.nanoTime();

        List<List<EgressAudit.Refusal>> seen = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < readers.size(); i++) {
                EgressAudit.Refusals read = readers.get(i).since(from.get(i));
                from.set(i, read.next());
                if (round == 0) {
                    seen.add(read.refusals());
                } else {
                    assertThat(read.refusals()).isEmpty();
                }
            }
        }
        long elapsedMs = (System.nanoTime() - started) / 1_000_000;

        assertThat(seen)
                .allSatisfy(
                        r ->
                                assertThat(r)
                                        .containsExactly(
                                                new EgressAudit.Refusal("denied.test", 80)));
        // 15 reads; one listing per two seconds at most, and one more per resync (10 s) that may
        // have fallen in between
        assertThat(gatewayListings())
                .isLessThanOrEqualTo((int) (2 + elapsedMs / 2_000 + elapsedMs / 10_000))
                .isLessThan(15);
    }

    /** The listings of the gateway's pods the API server got since the last call. */
    private static int gatewayListings() throws InterruptedException {
        int n = 0;
        RecordedRequest r;
        while ((r = server.takeRequest(10, java.util.concurrent.TimeUnit.MILLISECONDS)) != null) {
            if ("GET".equals(r.getMethod())
                    && r.getPath().contains("/pods?")
                    && r.getPath().contains("labelSelector")
                    && r.getPath().contains("agentbox-egress")) {
                n++;
            }
        }
        return n;
    }

    @Test
    void aGatewayPodThatDoesNotAnswerIsSkippedAndTheOthersRefusalsAreStillRead() throws Exception {
        SandboxHandle a = egressPod("tenant-a", "a.allowed.test");
        EgressAudit audit;
        long from;
        EgressAudit.Refusals read;
        try (AutoCloseable gone = gateway.unansweringPod("127.0.0.1")) {
            audit = a.egressAudit().orElseThrow();
            from = audit.end(); // the unanswering pod has no known start: not an error

            assertThat(status(a, "denied.test")).isEqualTo("403");
            read = audit.since(from);
            assertThat(audit.since(read.next()).refusals()).isEmpty();
        }

        assertThat(read.refusals()).containsExactly(new EgressAudit.Refusal("denied.test", 80));
        assertThat(status(a, "b.allowed.test")).isEqualTo("403");
        assertThat(audit.since(read.next()).refusals())
                .containsExactly(new EgressAudit.Refusal("b.allowed.test", 80));
    }

    @Test
    void aGatewayPodThatDoesNotAnswerIsLeftAloneForAWhileBeforeItIsTriedAgain() throws Exception {
        SandboxHandle a = egressPod("tenant-a", "a.allowed.test");
        AtomicLong now = new AtomicLong(System.nanoTime());
        GatewayPods pods = new GatewayPods(provider, now::get);
        AtomicInteger knocks = new AtomicInteger();
        // its helper port on a loopback address of its own: every try is a connection accepted
        // and closed at once, so the handshake fails and the try is counted
        try (ServerSocket helper = new ServerSocket();
                AutoCloseable gone = gateway.unansweringPod("127.0.0.2")) {
            helper.bind(
                    new InetSocketAddress(
                            "127.0.0.2", KubernetesSettings.Network.defaults().helperPort()));
            Thread accepting =
                    new Thread(
                            () -> {
                                while (!helper.isClosed()) {
                                    try (Socket s = helper.accept()) {
                                        knocks.incrementAndGet();
                                    } catch (java.io.IOException e) {
                                        return;
                                    }
                                }
                            });
            accepting.setDaemon(true);
            accepting.start();
            PodAudit audit = new PodAudit(pods, ip(a));
            long from = audit.end();
            await().atMost(Duration.ofSeconds(5)).until(() -> knocks.get() >= 1);
            assertThat(status(a, "denied.test")).isEqualTo("403");

            EgressAudit.Refusals read = audit.since(from);
            for (int i = 0; i < 5; i++) {
                audit.since(read.next());
            }
            Thread.sleep(300);

            assertThat(read.refusals()).containsExactly(new EgressAudit.Refusal("denied.test", 80));
            // Without the pause these reads would knock six more times. The provider's own
            // gateway resync (every 10 s, outside this audit) may knock once in the window.
            assertThat(knocks.get()).as("tries within the pause").isLessThanOrEqualTo(2);
            int before = knocks.get();
            now.addAndGet(PodAudit.RETRY.toNanos());
            assertThat(audit.since(read.next()).refusals()).isEmpty();
            await().atMost(Duration.ofSeconds(5)).until(() -> knocks.get() > before);
        }
    }

    @Test
    void twoTenantsPodsOnOneGatewayEachReachOnlyTheirOwnAllowList() {
        SandboxHandle a = egressPod("tenant-a", "a.allowed.test");
        SandboxHandle b = egressPod("tenant-b", "b.allowed.test");

        assertThat(status(a, "a.allowed.test")).isEqualTo("200");
        assertThat(status(a, "b.allowed.test")).isEqualTo("403");
        assertThat(status(b, "b.allowed.test")).isEqualTo("200");
        assertThat(status(b, "a.allowed.test")).isEqualTo("403");
    }

    @Test
    void aDestroyedPodsRulesLeaveTheGateway() {
        SandboxHandle a = egressPod("tenant-a", "a.allowed.test");
        String stem = ip(a);
        assertThat(gateway.rulesFor(stem).orElseThrow()).contains(a.id());

        provider.destroy(a.id());
        made.clear();

        assertThat(gateway.rulesFor(stem)).isEmpty();
    }

    @Test
    void aReleaseWhileANewerPodIsBeingAppliedAtTheSameIpLeavesTheNewerOnesFiles() {
        SandboxHandle a = egressPod("tenant-a", "a.allowed.test");
        String ip = ip(a);
        String files = "/etc/agentbox-egress/sandboxes/" + GatewayRules.stem(ip);
        // The IP was freed and taken by a newer pod whose rules are written but not yet renamed.
        DockerCli.ok(
                "exec",
                gateway.container(),
                "sh",
                "-c",
                "printf '# agentbox sandbox newer\\n' > "
                        + files
                        + ".rules.next && printf 'newer.allowed.test\\n' > "
                        + files
                        + ".dns");
        try {
            provider.destroy(a.id());
            made.clear();

            assertThat(DockerCli.ok("exec", gateway.container(), "cat", files + ".dns"))
                    .isEqualTo("newer.allowed.test");
            assertThat(gateway.rulesFor(ip)).as("rules left for the apply's rename").isPresent();
        } finally {
            DockerCli.run(
                    "exec",
                    gateway.container(),
                    "sh",
                    "-c",
                    "rm -f " + files + ".* && agentbox-egress reload");
        }
    }

    @Test
    void aGatewayContainerThatLostItsFilesGetsTheRunningPodsRulesBack() {
        SandboxHandle a = egressPod("tenant-a", "a.allowed.test");
        assertThat(status(a, "a.allowed.test")).isEqualTo("200");
        // a container restart: a fresh filesystem, the same pod, one more restart counted
        DockerCli.ok(
                "exec",
                gateway.container(),
                "sh",
                "-c",
                "rm -f /etc/agentbox-egress/sandboxes/* /etc/agentbox-egress/sandboxes/.restored"
                        + " && agentbox-egress reload");
        assertThat(status(a, "a.allowed.test")).isEqualTo("403");
        gateway.pod(1);

        provider.egress().resync();

        assertThat(status(a, "a.allowed.test")).isEqualTo("200");
        assertThat(status(a, "denied.test")).isEqualTo("403");
    }

    @Test
    void withoutAReadyGatewayPodAnEgressCreateFailsAndLeavesNoPod() {
        KubernetesSandboxProvider none =
                provider(
                        new KubernetesSettings.Network(
                                "agentbox",
                                Map.of("app.kubernetes.io/name", "agentbox"),
                                7070,
                                Optional.empty(),
                                Map.of("app.kubernetes.io/name", "no-such-gateway"),
                                List.of(3128, 53),
                                List.of(),
                                true,
                                "agentbox-egress",
                                "agentbox-egress-channel"));
        try {
            assertThatThrownBy(
                            () ->
                                    none.create(
                                            SandboxCreateInput.defaults()
                                                    .withRequestedId(run + "-nogw")
                                                    .withKey(run, "tenant-a")
                                                    .withPolicy(
                                                            SandboxPolicy.defaults()
                                                                    .withNetwork(
                                                                            SandboxPolicy.Network
                                                                                    .EGRESS))))
                    .isInstanceOf(ProblemException.class)
                    .hasMessageContaining("No egress gateway pod is ready");
            assertThat(client.pods().inNamespace(NS).withName("agentbox-" + run + "-nogw").get())
                    .isNull();
        } finally {
            none.close();
        }
    }

    @Test
    void theProviderOffersNetworkPolicyOnlyWithAGatewayDeployed() {
        assertThat(provider.capabilities().networkPolicy()).isTrue();
        KubernetesSandboxProvider without = provider(KubernetesSettings.Network.defaults());
        assertThat(without.capabilities().networkPolicy()).isFalse();
        without.close();
    }
}
