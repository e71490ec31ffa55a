package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.testing.model.ScriptedModelServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * A scripted model API that egress sandboxes reach as {@value #NAME} over HTTPS, like a real
 * provider somewhere on the internet: an {@link OutsideHost} at the fixed address the servers pin
 * that name to ({@code it.egress.model-address} in pom.xml), in whose network namespace a TLS relay
 * (src/test/node/tls-relay.mjs, with the test-only certificate of
 * src/test/resources/egress-test-tls, whose CA the gateway trusts upstream) forwards to a {@link
 * ScriptedModelServer} of this JVM on the host's side of that host's link. Nothing leaves this
 * machine.
 */
public final class ModelHost implements AutoCloseable {

    public static final String NAME = "model.egress.test";

    private final OutsideHost host;
    private final Process relay;
    private final ScriptedModelServer model;

    private ModelHost(OutsideHost host, Process relay, ScriptedModelServer model) {
        this.host = host;
        this.relay = relay;
        this.model = model;
    }

    /** Starts the host; the model server accepts {@code key} only. */
    public static ModelHost start(String key) throws Exception {
        String address = System.getProperty("agentbox.it.egress.model-address", "198.18.251.6");
        int last = Integer.parseInt(address.substring(address.lastIndexOf('.') + 1));
        String prefix = address.substring(0, address.lastIndexOf('.') + 1);
        OutsideHost host =
                OutsideHost.startAt(
                        "agentbox/sandbox:busybox",
                        "sleep 100000",
                        prefix + (last - 2) + "/30",
                        java.time.Duration.ofMinutes(10));
        ScriptedModelServer model = null;
        Process relay = null;
        try {
            String hostSide = prefix + (last - 1);
            model = ScriptedModelServer.start(InetAddress.getByName(hostSide), 0, key);
            Path node = Path.of(System.getProperty("agentbox.it.node-dir", "src/test/node"));
            Path tls = node.resolveSibling("resources").resolve("egress-test-tls");
            relay =
                    host.startInNetwork(
                            List.of(
                                    "node",
                                    node.resolve("tls-relay.mjs").toString(),
                                    "443",
                                    tls.resolve("server.pem").toString(),
                                    tls.resolve("server.key").toString(),
                                    hostSide,
                                    Integer.toString(model.port())));
            BufferedReader out =
                    new BufferedReader(
                            new InputStreamReader(relay.getInputStream(), StandardCharsets.UTF_8));
            assertThat(out.readLine()).isEqualTo("relay listening");
            return new ModelHost(host, relay, model);
        } catch (Exception | AssertionError e) {
            if (relay != null) {
                relay.destroyForcibly();
            }
            if (model != null) {
                model.close();
            }
            host.close();
            throw e;
        }
    }

    public ScriptedModelServer model() {
        return model;
    }

    /**
     * An ensure body of an egress sandbox of the agents image that may reach this host only, with
     * {@code keyVariable} brokered to it, {@code env} (JSON members) and {@code setup} (JSON array
     * elements).
     */
    static String sandbox(
            String definitionId, String keyVariable, String key, String env, String setup) {
        return "{\"definitionId\":\""
                + definitionId
                + "\",\"image\":\"agentbox/sandbox:agents\",\"lifecycle\":{\"reuse\":\"none\"},"
                + "\"policy\":{\"network\":\"egress\",\"egress\":{\"allow\":[\""
                + NAME
                + "\"]}},\"workspace\":{\"env\":{"
                + env
                + "},\"setup\":["
                + setup
                + "],\"secrets\":{\""
                + keyVariable
                + "\":{\"value\":\""
                + key
                + "\",\"brokerHosts\":[\""
                + NAME
                + "\"]}}}}";
    }

    /** Claude Code's sandbox: its endpoint is this host, no traffic but the model's. */
    public static String claudeSandbox(String definitionId, String key) {
        return claudeSandbox(definitionId, key, "");
    }

    /** As {@link #claudeSandbox(String, String)}, with {@code setup} (JSON array elements). */
    public static String claudeSandbox(String definitionId, String key, String setup) {
        return sandbox(
                definitionId,
                "ANTHROPIC_API_KEY",
                key,
                "\"ANTHROPIC_BASE_URL\":\"https://"
                        + NAME
                        + "\",\"DISABLE_TELEMETRY\":\"1\",\"DISABLE_AUTOUPDATER\":\"1\","
                        + "\"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC\":\"1\","
                        + "\"CLAUDE_CODE_MAX_RETRIES\":\"0\"",
                setup);
    }

    @Override
    public void close() {
        relay.destroyForcibly();
        model.close();
        host.close();
    }
}
