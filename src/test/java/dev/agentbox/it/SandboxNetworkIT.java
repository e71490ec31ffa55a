package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code policy.network: bridge} puts a sandbox on its tenant's own network: no traffic to the
 * host's listeners, none between sandboxes (same tenant or not), and still a way out. Every
 * listener here is one the test started (in this JVM or in a sandbox); every "cannot" is preceded
 * by a "can" from where the listener must be reachable, so a blocked probe means the network, not a
 * dead listener.
 */
class SandboxNetworkIT {

    private static final String BUSYBOX = "agentbox/sandbox:busybox";
    private final Api api = Api.itServer();
    private final Sandboxes tenantA = new Sandboxes(api, Api.TENANT_A);
    private final Sandboxes tenantB = new Sandboxes(api, Api.TENANT_B);

    @AfterEach
    void cleanUp() {
        tenantA.close();
        tenantB.close();
    }

    private static String bridgeBody(String image) {
        return "{\"definitionId\":\"net-"
                + UUID.randomUUID()
                + "\",\"image\":\""
                + image
                + "\",\"policy\":{\"network\":\"bridge\"}}";
    }

    private static String inspect(String container, String format) {
        return DockerCli.ok("inspect", "-f", format, container);
    }

    private static String ipOf(JsonObject sandbox) {
        return inspect(
                sandbox.getString("providerSandboxId"),
                "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}");
    }

    /**
     * A busybox sandbox of {@code sandboxes}' tenant serving "hello-…" on port 7000, one connection
     * at a time.
     */
    private JsonObject listeningSandbox(Sandboxes sandboxes, String token, String greeting) {
        JsonObject s = sandboxes.ensure(bridgeBody(BUSYBOX));
        HttpResponse<String> started =
                api.send(
                        api.request("/api/v1/sandboxes/" + s.getString("key") + "/processes", token)
                                .header("Content-Type", "application/json")
                                .POST(
                                        HttpRequest.BodyPublishers.ofString(
                                                Json.createObjectBuilder()
                                                        .add(
                                                                "command",
                                                                "while true; do echo "
                                                                        + greeting
                                                                        + " | nc -l -p 7000; done")
                                                        .build()
                                                        .toString())));
        assertThat(started.statusCode()).as(started.body()).isEqualTo(201);
        // reachable where it must be: inside the sandbox itself ...
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () ->
                                assertThat(
                                                sandboxes.stdout(
                                                        s.getString("key"),
                                                        "nc -w 2 127.0.0.1 7000 </dev/null"))
                                        .contains(greeting));
        // ... and on its network address, from the host
        assertThat(readFrom(ipOf(s), 7000)).contains(greeting);
        return s;
    }

    private static String readFrom(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 3000);
            socket.setSoTimeout(3000);
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError("could not read from " + host + ":" + port + ": " + e, e);
        }
    }

    @Test
    void
            bridgeSandboxesJoinTheirTenantsOwnNetworkWithInterContainerTrafficOffNotTheDefaultBridge() {
        JsonObject a = tenantA.ensure(bridgeBody(BUSYBOX));
        JsonObject a2 = tenantA.ensure(bridgeBody(BUSYBOX));
        JsonObject b = tenantB.ensure(bridgeBody(BUSYBOX));
        String netA = inspect(a.getString("providerSandboxId"), "{{.HostConfig.NetworkMode}}");
        String netB = inspect(b.getString("providerSandboxId"), "{{.HostConfig.NetworkMode}}");
        assertThat(netA).isNotIn("bridge", "default", "host", "none").isNotEqualTo(netB);
        assertThat(inspect(a2.getString("providerSandboxId"), "{{.HostConfig.NetworkMode}}"))
                .isEqualTo(netA);
        String options = DockerCli.ok("network", "inspect", "-f", "{{json .Options}}", netA);
        assertThat(options)
                .contains("\"com.docker.network.bridge.enable_icc\":\"false\"")
                .containsPattern("\"com.docker.network.bridge.name\":\"abr-[0-9a-f]{11}\"");
        assertThat(DockerCli.ok("network", "inspect", "-f", "{{.Name}}", netA))
                .startsWith("agentbox-tn-");
    }

    @Test
    void aBridgeSandboxCannotOpenAConnectionToAnyOfTheHostsOwnAddresses() throws Exception {
        JsonObject s = tenantA.ensure(bridgeBody(BUSYBOX));
        String gateway =
                inspect(
                        s.getString("providerSandboxId"),
                        "{{range .NetworkSettings.Networks}}{{.Gateway}}{{end}}");
        Set<String> seen = ConcurrentHashMap.newKeySet();
        try (ServerSocket listener = new ServerSocket()) {
            listener.bind(new InetSocketAddress("0.0.0.0", 0));
            int port = listener.getLocalPort();
            Thread acceptor =
                    new Thread(
                            () -> {
                                while (!listener.isClosed()) {
                                    try (Socket c = listener.accept();
                                            OutputStream out = c.getOutputStream()) {
                                        seen.add(c.getInetAddress().getHostAddress());
                                        out.write("host-hello\n".getBytes(StandardCharsets.UTF_8));
                                    } catch (IOException e) {
                                        return;
                                    }
                                }
                            },
                            "network-it-listener");
            acceptor.setDaemon(true);
            acceptor.start();

            List<String> hostAddresses = hostAddresses();
            assertThat(hostAddresses).contains(gateway);
            for (String address : hostAddresses) {
                // the listener answers on this address (from the host) ...
                String greeting;
                try {
                    greeting = readFrom(address, port);
                } catch (AssertionError e) {
                    // Another test's interface (an outside host of a concurrent lane) may have
                    // gone since the listing: only an address the host still has must answer.
                    if (!hostAddresses().contains(address)) {
                        continue;
                    }
                    throw e;
                }
                assertThat(greeting).as("from the host via %s", address).contains("host-hello");
                // ... but not to the sandbox
                JsonObject probe =
                        tenantA.exec(
                                s.getString("key"),
                                "nc -w 3 " + address + " " + port + " </dev/null");
                assertThat(probe.getString("stdout"))
                        .as(
                                "sandbox -> host %s:%d (is the host rule of scripts/docker-engine"
                                        + " installed?)",
                                address, port)
                        .doesNotContain("host-hello");
                assertThat(probe.getInt("exitCode")).isNotZero();
            }
            assertThat(seen).doesNotContain(ipOf(s));
        }
    }

    /** The host's IPv4 addresses other than loopback, now. */
    private static List<String> hostAddresses() throws java.net.SocketException {
        return NetworkInterface.networkInterfaces()
                .flatMap(NetworkInterface::inetAddresses)
                .filter(addr -> addr instanceof Inet4Address && !addr.isLoopbackAddress())
                .map(InetAddress::getHostAddress)
                .collect(Collectors.toList());
    }

    @Test
    void twoBridgeSandboxesOfTheSameTenantCannotReachEachOther() {
        JsonObject listener = listeningSandbox(tenantA, Api.TENANT_A, "hello-same-tenant");
        JsonObject prober = tenantA.ensure(bridgeBody(BUSYBOX));
        JsonObject probe =
                tenantA.exec(
                        prober.getString("key"), "nc -w 3 " + ipOf(listener) + " 7000 </dev/null");
        assertThat(probe.getString("stdout")).doesNotContain("hello-same-tenant");
        assertThat(probe.getInt("exitCode")).isNotZero();
    }

    @Test
    void aBridgeSandboxOfOneTenantCannotReachAnotherTenantsBridgeSandbox() {
        JsonObject listener = listeningSandbox(tenantB, Api.TENANT_B, "hello-tenant-b");
        JsonObject prober = tenantA.ensure(bridgeBody(BUSYBOX));
        JsonObject probe =
                tenantA.exec(
                        prober.getString("key"), "nc -w 3 " + ipOf(listener) + " 7000 </dev/null");
        assertThat(probe.getString("stdout")).doesNotContain("hello-tenant-b");
        assertThat(probe.getInt("exitCode")).isNotZero();
    }

    @Test
    void aBridgeSandboxStillReachesTheOutsideAndItsForkStaysOnTheTenantNetwork() {
        try (OutsideHost outside =
                OutsideHost.start(
                        BUSYBOX, "while true; do echo hello-outside | nc -l -p 7000; done")) {
            JsonObject s = tenantA.ensure(bridgeBody(BUSYBOX));
            String probe = "nc -w 3 " + outside.address() + " 7000 </dev/null";
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .untilAsserted(
                            () ->
                                    assertThat(tenantA.stdout(s.getString("key"), probe))
                                            .contains("hello-outside"));

            HttpResponse<String> forked =
                    api.send(
                            api.request(
                                            "/api/v1/sandboxes/" + s.getString("key") + "/fork",
                                            Api.TENANT_A)
                                    .POST(HttpRequest.BodyPublishers.noBody()));
            assertThat(forked.statusCode()).as(forked.body()).isEqualTo(201);
            JsonObject fork = Api.object(forked);
            tenantA.forget(fork.getString("key"));
            try {
                assertThat(
                                inspect(
                                        fork.getString("providerSandboxId"),
                                        "{{.HostConfig.NetworkMode}}"))
                        .isEqualTo(
                                inspect(
                                        s.getString("providerSandboxId"),
                                        "{{.HostConfig.NetworkMode}}"));
                assertThat(tenantA.stdout(fork.getString("key"), probe)).contains("hello-outside");
            } finally {
                tenantA.delete(fork.getString("key"));
            }
        }
    }
}
