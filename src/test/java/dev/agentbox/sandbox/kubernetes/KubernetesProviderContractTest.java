package dev.agentbox.sandbox.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import dev.agentbox.sandbox.spi.SandboxProvider;
import dev.agentbox.sandbox.spi.SandboxProviderContract;
import dev.agentbox.testing.NeedsDocker;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Duration;
import java.util.logging.Logger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite on the Kubernetes provider: the mock API server (CRUD mode) for the
 * objects, and for each pod a Docker container running this build's helper with {@code serve-tcp}
 * and the key of the pod's Secret ({@link PodContainers}), whose bridge address is the pod's IP. So
 * exec, files, processes, kills and stdin go to the real helper over the network, authenticated
 * with the sandbox's key; ports are reached at that address too. What the provider lacks
 * (snapshots, fork) is asserted as {@code unsupported-capability} by the suite itself.
 *
 * <p>One container for the class's shared sandbox, one more for the sandbox removed behind the
 * provider's back; each goes with its pod, and all with the class.
 */
@NeedsDocker
@EnableKubernetesMockClient(crud = true)
class KubernetesProviderContractTest extends SandboxProviderContract {

    private static final String NS = "sandboxes-contract";

    static KubernetesClient client;

    static final Logger QUIET = MockServerLogs.quiet();

    private PodContainers pods;
    private KubernetesSandboxProvider kubernetes;

    @Override
    protected SandboxProvider newProvider() {
        pods = PodContainers.start(client, NS);
        kubernetes =
                new KubernetesSandboxProvider(
                        KubernetesSettings.defaults()
                                .withNamespace(NS)
                                .withReadyTimeout(Duration.ofSeconds(60)),
                        client);
        return kubernetes;
    }

    @Override
    protected boolean workspaceIsTheBoundary() {
        return false;
    }

    @Override
    protected boolean hasGit() {
        return true; // agentbox/sandbox:bookworm, the provider's default image
    }

    @Override
    protected String httpServerCommand(int port) {
        return debianHttpServer(port);
    }

    /** Nothing is published: the port proxy connects to the pod's IP. */
    @Override
    protected boolean publishesPorts() {
        return false;
    }

    /** A pod with {@code network: bridge}: its NetworkPolicy admits agentbox to any port. */
    @Override
    protected SandboxHandle sandboxForPort(int port) {
        SandboxHandle h =
                provider.create(
                        baseInput()
                                .withRequestedId(runKey + "-ports")
                                .withPolicy(
                                        SandboxPolicy.defaults()
                                                .withNetwork(SandboxPolicy.Network.BRIDGE)));
        extra.add(h);
        return h;
    }

    @Override
    protected int servicePort() {
        return 8080;
    }

    /** As the cluster would: the pod is deleted, and its container with it. */
    @Override
    protected void removeBehindTheProvidersBack(String id) {
        client.pods().inNamespace(NS).withName(id).delete();
        pods.remove(id);
    }

    @Override
    protected void cleanupExtras() {
        if (pods != null) {
            pods.close();
        }
        if (kubernetes != null) {
            kubernetes.close();
        }
    }

    @Test
    @DisplayName(
            "a pod of an image without the helper runs the one its init container brought (SC-15)")
    void aPodOfAnImageWithoutTheHelperRunsTheOneItsInitContainerBrought() {
        String image = "agentbox/debian-base:bookworm-2"; // the sandbox images' base: no helper
        KubernetesSandboxProvider plain =
                new KubernetesSandboxProvider(
                        KubernetesSettings.defaults()
                                .withNamespace(NS)
                                .withReadyTimeout(Duration.ofSeconds(60))
                                .withImage(image),
                        client);
        SandboxHandle h = plain.create(baseInput().withRequestedId(runKey + "-nohelper"));
        try {
            assertThat(
                            h.process()
                                    .exec(
                                            "echo hi; ls /opt/agentbox/bin; test -w /opt/agentbox/bin"
                                                    + " || echo read-only")
                                    .stdout())
                    .isEqualTo("hi\nagentbox-sandboxd\nread-only\n");
            var spec = client.pods().inNamespace(NS).withName(h.id()).get().getSpec();
            assertThat(spec.getContainers().get(0).getImage()).isEqualTo(image);
            assertThat(spec.getInitContainers())
                    .singleElement()
                    .satisfies(
                            i -> {
                                assertThat(i.getImage())
                                        .isEqualTo(
                                                KubernetesSettings.defaults().pods().helperImage());
                                assertThat(i.getCommand())
                                        .containsExactly(
                                                "cp",
                                                SandboxObjects.HELPER,
                                                "/helper-out/agentbox-sandboxd");
                            });
        } finally {
            plain.destroy(h.id());
            plain.close();
        }
    }

    @Test
    @DisplayName(
            "the shared sandbox's pod IP is its container's bridge address, and its commands run as the pod's user")
    void commandsReachTheContainerAtThePodIp() {
        String ip = client.pods().inNamespace(NS).withName(sb.id()).get().getStatus().getPodIP();
        assertThat(ip).isNotBlank().doesNotStartWith("127.");
        assertThat(pods.running()).isPositive();
        assertThat(sb.process().exec("id -u").stdout()).isEqualTo("1000\n");
        // the helper answers at that address: the address the sandbox itself has
        assertThat(sb.process().exec("cat /proc/net/fib_trie").stdout()).contains(ip);
    }

    @Test
    @DisplayName(
            "a pod with network none has no reachable port: unsupported-capability naming ports; a port out of range is 400")
    void aPodWithoutNetworkHasNoReachablePort() {
        ProblemException none =
                catchThrowableOfType(() -> sb.ports().address(8080), ProblemException.class);
        assertThat(none.status()).isEqualTo(422);
        assertThat(none.getMessage()).contains("policy.network none");
        assertThat(sb.ports().published(8080)).isEmpty();
        ProblemException range =
                catchThrowableOfType(() -> sb.ports().address(70000), ProblemException.class);
        assertThat(range.status()).isEqualTo(400);
    }

    @Test
    @DisplayName(
            "an archive entry of a type the SPI does not unpack (a FIFO) fails the write; the entries before it stay")
    void anArchiveWithAFifoFailsTheWrite() throws Exception {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (org.apache.commons.compress.archivers.tar.TarArchiveOutputStream out =
                new org.apache.commons.compress.archivers.tar.TarArchiveOutputStream(bytes)) {
            var file = new org.apache.commons.compress.archivers.tar.TarArchiveEntry("first.txt");
            file.setSize(2);
            out.putArchiveEntry(file);
            out.write(new byte[] {'o', 'k'});
            out.closeArchiveEntry();
            out.putArchiveEntry(
                    new org.apache.commons.compress.archivers.tar.TarArchiveEntry(
                            "pipe",
                            org.apache.commons.compress.archivers.tar.TarConstants.LF_FIFO));
            out.closeArchiveEntry();
        }

        assertThatThrownBy(
                        () ->
                                sb.fs()
                                        .writeArchive(
                                                "fifo-archive",
                                                new java.io.ByteArrayInputStream(
                                                        bytes.toByteArray())))
                .hasMessageContaining("unsupported entry type: pipe");
        assertThat(sb.fs().readBytes("fifo-archive/first.txt")).containsExactly('o', 'k');
        assertThat(sb.fs().exists("fifo-archive/pipe")).isFalse();
    }

    @Test
    @DisplayName(
            "a pod whose helper does not answer fails commands and files with provider-unavailable saying so, not unsupported-capability")
    void aPodWithoutAReachableHelperSaysSo() {
        SandboxHandle lost = provider.create(baseInput().withRequestedId(runKey + "-lost"));
        extra.add(lost);
        pods.remove(lost.id()); // the pod stays, its helper is gone
        assertThatThrownBy(() -> lost.process().exec("true"))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> {
                            assertThat(e.status()).isEqualTo(503);
                            assertThat(e.getMessage())
                                    .contains("agentbox-sandboxd serve-tcp on port 7070")
                                    .contains("cannot be reached");
                        });
        assertThatThrownBy(() -> lost.fs().read("x"))
                .isInstanceOfSatisfying(
                        ProblemException.class, e -> assertThat(e.status()).isEqualTo(503));
    }
}
