package dev.agentbox.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.it.DockerCli;
import dev.agentbox.it.OutsideHost;
import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.sandbox.egress.EgressSettings;
import dev.agentbox.sandbox.spi.EgressPolicy;
import dev.agentbox.sandbox.spi.EgressRule;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxLabels;
import dev.agentbox.sandbox.spi.SandboxLimits;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import dev.agentbox.testing.NeedsDocker;
import dev.agentbox.testing.SettableClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Idle egress gateways reclaimed by the reaper, and ensures racing the reclaim ({@link
 * IdleGateways}; EG-23..EG-26). Each test uses installations of its own, so what it counts is only
 * what it made; the "internet" is one web host the test starts, reached by a pinned name.
 */
@NeedsDocker
class IdleGatewaysTest {

    private static final String IMAGE = "agentbox/sandbox:bookworm";
    private static final Duration HOUR = Duration.ofHours(1);
    private static final EgressPolicy POLICY =
            new EgressPolicy(List.of(EgressRule.host("web.allowed.test")), List.of());

    private static OutsideHost web;
    private static EgressSettings egress;
    private static final SettableClock clock =
            new SettableClock(Instant.parse("2030-01-01T00:00:00Z"));
    private static DockerSandboxProvider provider;
    private final List<SandboxHandle> sandboxes = Collections.synchronizedList(new ArrayList<>());
    private final List<String[]> scopes = new ArrayList<>();

    @BeforeAll
    static void internet() {
        web =
                OutsideHost.start(
                        "agentbox/sandbox:busybox",
                        "mkdir -p /www && echo hello-from-web > /www/index.html"
                                + " && httpd -f -p 80 -h /www");
        egress =
                EgressSettings.defaults()
                        .withAlwaysAllow(List.of())
                        .withResolve(Map.of("web.allowed.test", web.address()));
        provider = newProvider(clock);
    }

    private static DockerSandboxProvider newProvider(Clock clock) {
        return new DockerSandboxProvider(
                DockerSettings.builder().image(IMAGE).build(),
                SandboxLimits.defaults(),
                new DaemonThreads("test-idle-gateways"),
                clock,
                egress);
    }

    @AfterEach
    void cleanUp() {
        sandboxes.forEach(s -> provider.destroy(s.id()));
        for (String[] scope : scopes) {
            // also what a create cut short left (an interrupted or failed race): every container
            // of the test's own installation
            for (String c : names("label=" + SandboxLabels.INSTALLATION + "=" + scope[0])) {
                DockerCli.run("rm", "-f", c);
            }
            String gateway = gateway(scope[0], scope[1]);
            for (String c : names("label=" + EgressGateways.GATEWAY_LABEL + "=" + hash(scope))) {
                DockerCli.run("rm", "-f", c);
            }
            DockerCli.run("rm", "-f", gateway);
            DockerCli.run("network", "rm", network(scope[0], scope[1]));
        }
    }

    @AfterAll
    static void stop() {
        if (provider != null) {
            provider.close();
        }
        if (web != null) {
            web.close();
        }
    }

    /** A new installation and tenant, cleaned up after the test. */
    private String[] scope() {
        String[] scope = {UUID.randomUUID().toString(), "idle-" + UUID.randomUUID()};
        scopes.add(scope);
        return scope;
    }

    private static String hash(String[] scope) {
        return EgressGateways.hash(NetworkScope.of(Optional.of(scope[0]), scope[1]));
    }

    private static String gateway(String installation, String tenant) {
        return EgressGatewayNames.gateway(installation, tenant);
    }

    private static String network(String installation, String tenant) {
        return EgressGatewayNames.network(installation, tenant);
    }

    private SandboxHandle sandbox(DockerSandboxProvider p, String[] scope) {
        SandboxHandle h =
                p.create(
                        SandboxCreateInput.defaults()
                                .withKey("idle-" + UUID.randomUUID(), scope[1])
                                .withInstallation(scope[0])
                                .withPolicy(
                                        new SandboxPolicy(
                                                SandboxPolicy.Network.EGRESS,
                                                OptionalInt.empty(),
                                                OptionalDouble.empty(),
                                                OptionalInt.empty(),
                                                List.of(),
                                                POLICY)));
        sandboxes.add(h);
        return h;
    }

    private static String web(SandboxHandle s) {
        return s.process().exec("curl -s --max-time 10 http://web.allowed.test/").stdout();
    }

    /** Names of all containers (any state) matching a {@code docker ps} filter. */
    private static List<String> names(String filter) {
        return DockerCli.ok("ps", "-a", "--filter", filter, "--format", "{{.Names}}")
                .lines()
                .filter(l -> !l.isBlank())
                .toList();
    }

    private static boolean exists(String container) {
        return DockerCli.run("inspect", container).exitCode() == 0;
    }

    private static boolean networkExists(String network) {
        return DockerCli.run("network", "inspect", network).exitCode() == 0;
    }

    private void destroy(SandboxHandle s) {
        provider.destroy(s.id());
        sandboxes.remove(s);
    }

    @Test
    void anIdleGatewayIsReclaimedWithItsNetworkAndTheNextEnsureMakesThemAgain_EG23() {
        String[] scope = scope();
        String gateway = gateway(scope[0], scope[1]);
        String network = network(scope[0], scope[1]);
        SandboxHandle first = sandbox(provider, scope);
        assertThat(web(first)).contains("hello-from-web");
        assertThat(
                        DockerCli.ok(
                                        "inspect",
                                        "-f",
                                        "{{index .Config.Labels \"dev.agentbox.installation\"}}",
                                        gateway)
                                .strip())
                .isEqualTo(scope[0]);
        destroy(first);
        // first seen idle now: not yet reclaimed, nor a minute before the bound
        assertThat(provider.reclaimIdleGateways(scope[0], HOUR)).isEmpty();
        clock.advance(HOUR.minusMinutes(1));
        assertThat(provider.reclaimIdleGateways(scope[0], HOUR)).isEmpty();
        assertThat(exists(gateway)).isTrue();
        clock.advance(Duration.ofMinutes(1));
        assertThat(provider.reclaimIdleGateways(scope[0], HOUR)).containsExactly(gateway);
        assertThat(names("label=" + EgressGateways.GATEWAY_LABEL + "=" + hash(scope))).isEmpty();
        assertThat(networkExists(network)).isFalse();
        // the tenant's next egress sandbox makes both again and reaches its host
        SandboxHandle next = sandbox(provider, scope);
        assertThat(web(next)).contains("hello-from-web");
        assertThat(exists(gateway)).isTrue();
    }

    @Test
    void aGatewayWithAnEgressSandboxRunningOrStoppedIsNeverReclaimed_EG24() {
        String[] scope = scope();
        String gateway = gateway(scope[0], scope[1]);
        SandboxHandle s = sandbox(provider, scope);
        String id = DockerCli.ok("inspect", "-f", "{{.Id}}", gateway).strip();
        for (int i = 0; i < 2; i++) {
            assertThat(provider.reclaimIdleGateways(scope[0], Duration.ZERO)).isEmpty();
        }
        DockerCli.ok("stop", "-t", "1", s.id());
        for (int i = 0; i < 2; i++) {
            assertThat(provider.reclaimIdleGateways(scope[0], Duration.ZERO)).isEmpty();
        }
        assertThat(DockerCli.ok("inspect", "-f", "{{.Id}}", gateway).strip()).isEqualTo(id);
        SandboxHandle resumed = provider.resume(s.id()).orElseThrow();
        assertThat(web(resumed)).contains("hello-from-web");
    }

    @Test
    void onlyTheReapersOwnInstallationsGatewaysAreReclaimed_EG25() {
        String[] ours = scope();
        String[] theirs = scope();
        String[] unlabelled = scope();
        provider.gateways()
                .ensure(NetworkScope.of(Optional.of(theirs[0]), theirs[1]), Optional.of(theirs[0]));
        // made without an installation label (as before gateways carried one): never reclaimed
        provider.gateways()
                .ensure(
                        NetworkScope.of(Optional.of(unlabelled[0]), unlabelled[1]),
                        Optional.empty());
        provider.gateways()
                .ensure(NetworkScope.of(Optional.of(ours[0]), ours[1]), Optional.of(ours[0]));
        assertThat(provider.reclaimIdleGateways(ours[0], Duration.ZERO))
                .containsExactly(gateway(ours[0], ours[1]));
        assertThat(provider.reclaimIdleGateways(unlabelled[0], Duration.ZERO)).isEmpty();
        assertThat(exists(gateway(theirs[0], theirs[1]))).isTrue();
        assertThat(networkExists(network(theirs[0], theirs[1]))).isTrue();
        assertThat(exists(gateway(unlabelled[0], unlabelled[1]))).isTrue();
        assertThat(exists(gateway(ours[0], ours[1]))).isFalse();
    }

    /**
     * The race of egress ensures against the reclaim of their gateway (the behaviour the catalogue
     * lists as not yet pinned). Disabled: with two reapers passing at bound 0, a sandbox start was
     * still refused "Address already in use" once the network had been made again under it.
     */
    @Test
    void ensuresRacingTheReclaimOfTheirGatewayEachEndWithAWayOut_EG27() throws Exception {
        String[] scope = scope();
        // two servers, each with a reaper passing at bound 0 all along, and the ensures on both
        DockerSandboxProvider other = newProvider(Clock.systemUTC());
        DockerSandboxProvider[] servers = {provider, other};
        ExecutorService pool = Executors.newFixedThreadPool(12);
        AtomicBoolean done = new AtomicBoolean();
        AtomicInteger reclaims = new AtomicInteger();
        // an idle gateway for the reapers to take while the ensures come, one every 100 ms
        provider.gateways()
                .ensure(NetworkScope.of(Optional.of(scope[0]), scope[1]), Optional.of(scope[0]));
        try {
            List<Future<?>> reapers = new ArrayList<>();
            for (DockerSandboxProvider p : servers) {
                reapers.add(
                        pool.submit(
                                () -> {
                                    while (!done.get()) {
                                        reclaims.addAndGet(
                                                p.reclaimIdleGateways(scope[0], Duration.ZERO)
                                                        .size());
                                        Thread.sleep(20);
                                    }
                                    return null;
                                }));
            }
            // Ten workers, on both servers, each three times: make a sandbox, check its way out
            // at once, destroy it. Whenever every sandbox is gone the gateway is idle, and the
            // reapers take it; the next ensures race that reclaim.
            // Two waves of five: between them every sandbox of the first is gone, so the
            // gateway is idle for the reapers however the first wave's ensures interleaved (on
            // a loaded machine they may overlap throughout), and the second wave's ensures meet
            // a gateway taken or being taken.
            CountDownLatch go = new CountDownLatch(1);
            CountDownLatch second = new CountDownLatch(1);
            List<Future<List<String>>> made = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                DockerSandboxProvider p = servers[i % 2];
                long delay = (i % 5) * 150L;
                CountDownLatch wave = i < 5 ? go : second;
                made.add(
                        pool.submit(
                                () -> {
                                    wave.await();
                                    Thread.sleep(delay);
                                    List<String> answers = new ArrayList<>();
                                    for (int round = 0; round < 3; round++) {
                                        SandboxHandle s = sandbox(p, scope);
                                        answers.add(s.id() + " " + web(s));
                                        p.destroy(s.id());
                                        Thread.sleep(200);
                                    }
                                    return answers;
                                }));
            }
            go.countDown();
            List<String> all = new ArrayList<>();
            for (Future<List<String>> f : made.subList(0, 5)) {
                all.addAll(f.get(600, TimeUnit.SECONDS));
            }
            int afterFirst = reclaims.get();
            long idleUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (reclaims.get() == afterFirst && System.nanoTime() < idleUntil) {
                Thread.sleep(20);
            }
            second.countDown();
            for (Future<List<String>> f : made.subList(5, 10)) {
                all.addAll(f.get(600, TimeUnit.SECONDS));
            }
            done.set(true);
            for (Future<?> r : reapers) {
                r.get(60, TimeUnit.SECONDS);
            }
            assertThat(all).hasSize(30);
            assertThat(all).allSatisfy(a -> assertThat(a).contains("hello-from-web"));
            assertThat(reclaims.get())
                    .as("the reapers took the gateway during the ensures")
                    .isPositive();
            // then one more ensure: one gateway with the name, running, no tomb, and the network
            SandboxHandle last = sandbox(provider, scope);
            assertThat(web(last)).contains("hello-from-web");
            String gateway = gateway(scope[0], scope[1]);
            assertThat(names("label=" + EgressGateways.GATEWAY_LABEL + "=" + hash(scope)))
                    .containsExactly(gateway);
            assertThat(DockerCli.ok("inspect", "-f", "{{.State.Running}}", gateway).strip())
                    .isEqualTo("true");
            assertThat(networkExists(network(scope[0], scope[1]))).isTrue();
            System.out.println("race: gateways reclaimed during the ensures: " + reclaims.get());
        } finally {
            done.set(true);
            pool.shutdownNow();
            other.close();
        }
    }

    @Test
    void aGatewayLeftAsATombIsRescuedByTheNextEnsureOrRemovedByALaterReclaim_EG26() {
        String[] scope = scope();
        String gateway = gateway(scope[0], scope[1]);
        String tomb = gateway + EgressGateways.TOMB_INFIX + "0badc0de";
        EgressGateways.Gateway gw =
                provider.gateways()
                        .ensure(
                                NetworkScope.of(Optional.of(scope[0]), scope[1]),
                                Optional.of(scope[0]));
        // as a reaper that stopped after R1 leaves it
        DockerCli.ok("rename", gateway, tomb);
        SandboxHandle s = sandbox(provider, scope);
        assertThat(DockerCli.ok("inspect", "-f", "{{.Id}}", gateway).strip())
                .as("the same container, its name back")
                .isEqualTo(gw.id());
        assertThat(exists(tomb)).isFalse();
        assertThat(web(s)).contains("hello-from-web");
        // with no sandbox left, a tomb is removed by a later reclaim, with the network
        destroy(s);
        DockerCli.ok("rename", gateway, tomb);
        assertThat(provider.reclaimIdleGateways(scope[0], Duration.ZERO)).containsExactly(gateway);
        assertThat(exists(tomb)).isFalse();
        assertThat(networkExists(network(scope[0], scope[1]))).isFalse();
    }
}
