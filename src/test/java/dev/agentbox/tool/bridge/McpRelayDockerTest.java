package dev.agentbox.tool.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.sandbox.docker.DockerSandboxProvider;
import dev.agentbox.sandbox.docker.DockerSettings;
import dev.agentbox.sandbox.spi.OutputChunk;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxProcess;
import dev.agentbox.testing.NeedsDocker;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The relay, {@code agentbox-sandboxd mcp DIR}, run for real in a container: the file protocol of
 * docs/sandbox-channel.md ("The tool bridge's mailbox") seen from the server's side.
 */
@NeedsDocker
class McpRelayDockerTest {

    static final String HELPER = "/opt/agentbox/bin/agentbox-sandboxd";

    private static DockerSandboxProvider provider;
    private static SandboxHandle sandbox;

    @BeforeAll
    static void sandbox() {
        provider =
                new DockerSandboxProvider(
                        DockerSettings.builder().image("agentbox/sandbox:bookworm").build(),
                        new DaemonThreads("relay-test"),
                        Clock.systemUTC());
        String id = "relay-" + UUID.randomUUID().toString().substring(0, 8);
        sandbox =
                provider.create(
                        SandboxCreateInput.defaults()
                                .withKey(id, "tenant-relay")
                                .withRequestedId(id));
    }

    @AfterAll
    static void cleanUp() {
        if (sandbox != null) {
            sandbox.destroy();
        }
        provider.close();
    }

    /** A relay on a fresh mailbox, and what it prints. */
    private record Relay(SandboxProcess process, StringBuffer out, Mailbox mailbox) {
        String session() {
            String s = sandbox.fs().read(mailbox.sessions()).strip();
            assertThat(s).matches("[0-9a-f]{16}");
            return s;
        }
    }

    private Relay relay(String token) {
        Mailbox m = new Mailbox("/tmp/mb-" + UUID.randomUUID().toString().substring(0, 8));
        StringBuffer out = new StringBuffer();
        SandboxProcess p =
                sandbox.process()
                        .spawn(
                                HELPER + " mcp " + m.dir(),
                                ProcessOptions.defaults()
                                        .withEnv(Map.of("AGENTBOX_MCP_TOKEN", token)));
        p.subscribe(
                c -> {
                    if (c.stream() == OutputChunk.Stream.STDOUT) {
                        out.append(c.text());
                    }
                });
        await().atMost(Duration.ofSeconds(10)).until(() -> sandbox.fs().exists(m.sessions()));
        return new Relay(p, out, m);
    }

    @Test
    void relaysMessagesBothWaysInOrderBehindTheToken() {
        Relay r = relay("tok-1");
        String s = r.session();
        r.process().writeStdin("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\n");
        r.process().writeStdin("{\"jsonrpc\":\"2.0\",\"method\":\"b\"}\n{\"id\":2}\n");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> sandbox.fs().read(r.mailbox().in(s)).lines().count() == 4);
        assertThat(sandbox.fs().read(r.mailbox().in(s)).lines().toList())
                .containsExactly(
                        "tok-1",
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}",
                        "{\"jsonrpc\":\"2.0\",\"method\":\"b\"}",
                        "{\"id\":2}");

        // The second answer first: the relay holds it until the first is there.
        sandbox.fs().write(r.mailbox().out(s, 2), "{\"second\":true}");
        sleep(600);
        assertThat(r.out().toString()).isEmpty();
        sandbox.fs().write(r.mailbox().out(s, 1), "{\"first\":true}");
        await().atMost(Duration.ofSeconds(5)).until(() -> r.out().toString().lines().count() == 2);
        assertThat(r.out().toString().lines().toList())
                .containsExactly("{\"first\":true}", "{\"second\":true}");
        r.process().closeStdin();
        assertThat(r.process().waitFor(Duration.ofSeconds(5))).hasValue(0);
    }

    @Test
    void refusesALineOverOneMebibyteWithAnErrorForItsIdAndNeverForwardsIt() {
        Relay r = relay("tok-2");
        String s = r.session();
        String big =
                "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"a\":\""
                        + "x".repeat(2 * 1024 * 1024)
                        + "\"},\"id\":7}\n";
        r.process().writeStdin(big);
        r.process().writeStdin("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}\n");
        await().atMost(Duration.ofSeconds(20)).until(() -> r.out().toString().contains("\n"));
        assertThat(r.out().toString().strip())
                .isEqualTo(
                        "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32600,\"message\":"
                                + "\"message over 1048576 bytes refused by the agentbox relay\"}}");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> sandbox.fs().read(r.mailbox().in(s)).lines().count() == 2);
        List<String> in = sandbox.fs().read(r.mailbox().in(s)).lines().toList();
        assertThat(in)
                .containsExactly("tok-2", "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}");
        r.process().closeStdin();
        assertThat(r.process().waitFor(Duration.ofSeconds(5))).hasValue(0);
    }

    @Test
    void endsWhenItsStdinEndsEvenWithAnswersStillAwaitedAndSaysSoInItsLastLine() {
        Relay r = relay("tok-3");
        r.process().writeStdin("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"slow\"}\n");
        r.process().closeStdin();
        assertThat(r.process().waitFor(Duration.ofSeconds(5))).hasValue(0);
        assertThat(sandbox.fs().read(r.mailbox().in(r.session())))
                .isEqualTo(
                        "tok-3\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"slow\"}\n"
                                + BridgeSession.ENDED
                                + "\n");
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
