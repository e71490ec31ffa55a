package dev.agentbox.sandbox.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.spi.SandboxCapabilities.Capability;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import dev.agentbox.sandbox.spi.SandboxProvider;
import dev.agentbox.sandbox.spi.SandboxProviderContract;
import dev.agentbox.sandbox.spi.UnsupportedCapabilityException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The conformance suite on the local-process provider, in a temporary root. */
class LocalProviderTest extends SandboxProviderContract {

    private Path root;

    @Override
    protected SandboxProvider newProvider() {
        try {
            root = Files.createTempDirectory("agentbox-local-test");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new LocalSandboxProvider(
                new LocalSettings(true, root), new DaemonThreads("test-local"), Clock.systemUTC());
    }

    @Override
    protected boolean workspaceIsTheBoundary() {
        return true;
    }

    @Override
    protected boolean hasGit() {
        return true;
    }

    @Override
    protected String httpServerCommand(int port) {
        return "exec busybox httpd -f -p 127.0.0.1:" + port + " -h .";
    }

    @Override
    protected int servicePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    protected void removeBehindTheProvidersBack(String id) {
        LocalSandboxProvider.deleteTree(root.resolve(id));
    }

    @Override
    protected void cleanupExtras() {
        LocalSandboxProvider.deleteTree(root);
    }

    @Test
    @DisplayName(
            "the local provider cannot confine a sandbox's network: egress is unsupported-capability networkPolicy, and no folder is made")
    void egressIsUnsupported() throws IOException {
        long before;
        try (var entries = Files.list(root)) {
            before = entries.count();
        }
        assertThatThrownBy(
                        () ->
                                provider.create(
                                        baseInput()
                                                .withRequestedId("egress-refused")
                                                .withPolicy(
                                                        SandboxPolicy.defaults()
                                                                .withNetwork(
                                                                        SandboxPolicy.Network
                                                                                .EGRESS))))
                .isInstanceOfSatisfying(
                        UnsupportedCapabilityException.class,
                        e -> {
                            assertThat(e.provider()).isEqualTo(LocalSandboxProvider.NAME);
                            assertThat(e.capability()).isEqualTo(Capability.NETWORK_POLICY);
                        });
        try (var entries = Files.list(root)) {
            assertThat(entries.count()).isEqualTo(before);
        }
        assertThat(provider.capabilities().networkPolicy()).isFalse();
    }

    @Test
    @DisplayName("the local provider has no images: asking for one is invalid-request")
    void noImages() {
        assertThatThrownBy(
                        () -> provider.create(baseInput().withImage("agentbox/sandbox:bookworm")))
                .isInstanceOf(ProblemException.class)
                .extracting(e -> ((ProblemException) e).code())
                .isEqualTo(ProblemCode.INVALID_REQUEST);
    }

    @Test
    @DisplayName(
            "the workspace root is a folder under the configured root; sandbox env does not leak the server's env")
    void workspaceRootAndEnv() {
        assertThat(Path.of(sb.workspaceRoot()).getParent())
                .isEqualTo(root.toAbsolutePath().normalize());
        assertThat(sb.process().exec("env | cut -d= -f1 | sort").stdout().split("\n"))
                .doesNotContain("JAVA_HOME", "MAVEN_OPTS");
        assertThat(provider.available()).isTrue();
    }
}
