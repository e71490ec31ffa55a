package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.platform.ShellQuote;
import dev.agentbox.testing.model.ScriptedModelServer;
import dev.agentbox.testing.model.Turn;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Brokered secrets on every path (docs/api.md; BS-01, BS-02): an unmodified {@code @ag-ui/client}
 * HttpAgent drives a Claude Code agent in an egress sandbox, the model key given as the client or
 * the operator gives it — brokered in {@code forwardedProps}, from a secret set with a {@code
 * .broker-hosts} file, or as a plain string that is brokered by default — and the scripted model
 * server gets the real key while nothing in the sandbox (environment, files, any process's {@code
 * environ} or {@code cmdline}) holds it. A definition's {@code brokeredSecrets} makes a plain value
 * brokered, its {@code plainSecrets} keeps the model key plain.
 *
 * <p>The model host is a {@link ModelHost}: nothing leaves this machine.
 */
class BrokeredSecretPathsIT {

    private static final String KEY = "sk-paths-" + UUID.randomUUID();
    private static final String PLACEHOLDER = "agentbox-brokered-[0-9a-f]{40}";

    private static ModelHost host;
    private static ScriptedModelServer model;
    private static final RunSandboxes made =
            new RunSandboxes(Api.itServer(), Api.TENANT_A, EgressWorld.TENANT_A);

    private final Api api = Api.itServer();
    private final NodeScripts node = new NodeScripts();
    private final Runs runs = new Runs(api, Api.TENANT_A);
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);

    @BeforeAll
    static void modelHost() throws Exception {
        host = ModelHost.start(KEY);
        model = host.model();
    }

    @AfterAll
    static void stop() {
        try {
            made.destroyAll();
        } finally {
            if (host != null) {
                host.close();
            }
            EgressWorld.removeGateways(EgressWorld.TENANT_A);
        }
    }

    @AfterEach
    void cleanUp() {
        sandboxes.close();
        model.clearRequests();
        model.clearScript();
    }

    /**
     * BS-01: three turns of one thread, the key given brokered in {@code forwardedProps}, then by a
     * secret set whose {@code ANTHROPIC_API_KEY.broker-hosts} names the model host, then as a plain
     * string (brokered by default to the host of {@code ANTHROPIC_BASE_URL}).
     */
    @Test
    void theModelKeyNeverEntersTheSandboxWhicheverWayTheClientGivesIt() throws Exception {
        node.requireInstalled();
        String agentId = "bs-paths-" + UUID.randomUUID().toString().substring(0, 8);
        AgUiInterruptsIT.define(api, agentId, KEY, "");
        String set = agentId + "-set";
        Path dir =
                Files.createDirectories(
                        Path.of(System.getProperty("agentbox.it.secret-sets-dir"))
                                .resolve(EgressWorld.TENANT_A)
                                .resolve(set));
        Files.writeString(dir.resolve("ANTHROPIC_API_KEY"), KEY);
        Files.writeString(dir.resolve("ANTHROPIC_API_KEY.broker-hosts"), ModelHost.NAME + "\n");
        String thread = "t-" + agentId;
        try {
            JsonObject brokered =
                    Json.createObjectBuilder()
                            .add("value", KEY)
                            .add("brokerHosts", Json.createArrayBuilder().add(ModelHost.NAME))
                            .build();
            String sandboxKey =
                    turn(
                            agentId,
                            thread,
                            Json.createObjectBuilder()
                                    .add(
                                            "secrets",
                                            Json.createObjectBuilder()
                                                    .add("ANTHROPIC_API_KEY", brokered)));
            assertTheKeyIsOnlyAtTheModel(sandboxKey);

            assertThat(turn(agentId, thread, Json.createObjectBuilder().add("secretSet", set)))
                    .isEqualTo(sandboxKey);
            assertTheKeyIsOnlyAtTheModel(sandboxKey);

            assertThat(
                            turn(
                                    agentId,
                                    thread,
                                    Json.createObjectBuilder()
                                            .add(
                                                    "secrets",
                                                    Json.createObjectBuilder()
                                                            .add("ANTHROPIC_API_KEY", KEY))))
                    .isEqualTo(sandboxKey);
            assertTheKeyIsOnlyAtTheModel(sandboxKey);
        } finally {
            Files.deleteIfExists(dir.resolve("ANTHROPIC_API_KEY.broker-hosts"));
            Files.deleteIfExists(dir.resolve("ANTHROPIC_API_KEY"));
            Files.deleteIfExists(dir);
            api.send(api.request("/api/v1/agents/" + agentId, Api.TENANT_A).DELETE());
        }
    }

    /**
     * BS-02: a definition's {@code brokeredSecrets} brokers a variable given as a plain string; its
     * {@code plainSecrets} keeps the model key plain, so the CLI holds the real value.
     */
    @Test
    void aDefinitionBrokersAPlainValueAndKeepsTheModelKeyPlain() throws Exception {
        node.requireInstalled();
        String agentId = "bs-plain-" + UUID.randomUUID().toString().substring(0, 8);
        String token = "tok-" + UUID.randomUUID();
        AgUiInterruptsIT.define(
                api,
                agentId,
                KEY,
                ",\"brokeredSecrets\":{\"EXTRA_TOKEN\":[\""
                        + ModelHost.NAME
                        + "\"]},\"plainSecrets\":[\"ANTHROPIC_API_KEY\"]");
        try {
            String sandboxKey =
                    turn(
                            agentId,
                            "t-" + agentId,
                            Json.createObjectBuilder()
                                    .add(
                                            "secrets",
                                            Json.createObjectBuilder()
                                                    .add("ANTHROPIC_API_KEY", KEY)
                                                    .add("EXTRA_TOKEN", token)));

            assertThat(sandboxes.stdout(sandboxKey, "printf %s \"$ANTHROPIC_API_KEY\""))
                    .as("plainSecrets keeps the model key plain")
                    .isEqualTo(KEY);
            assertThat(sandboxes.stdout(sandboxKey, "printf %s \"$EXTRA_TOKEN\""))
                    .matches(PLACEHOLDER);
            assertThat(holders(sandboxKey, token))
                    .as("where the sandbox holds the token")
                    .isEmpty();
        } finally {
            api.send(api.request("/api/v1/agents/" + agentId, Api.TENANT_A).DELETE());
        }
    }

    /**
     * One turn of {@code thread} through HttpAgent with {@code agentbox} as {@code
     * forwardedProps.agentbox}; the model answers with text. Returns the run's sandbox key.
     */
    private String turn(String agentId, String thread, JsonObjectBuilder agentbox) {
        model.enqueue(Turn.text("brokered hello"));
        String runId = made.track("bs-run-" + UUID.randomUUID());
        NodeScripts.Result r =
                node.run(
                        "agui-http-agent.mjs",
                        Json.createObjectBuilder()
                                .add("baseUrl", api.baseUrl())
                                .add("token", Api.TENANT_A)
                                .add("agentId", agentId)
                                .add("threadId", thread)
                                .add("runId", runId)
                                .add("prompt", "say hello")
                                .add(
                                        "forwardedProps",
                                        Json.createObjectBuilder().add("agentbox", agentbox))
                                .build());
        assertThat(r.exitCode()).as(r.json().toString()).isZero();
        assertThat(r.json().getJsonArray("newMessages").toString()).contains("brokered hello");
        assertThat(r.json().toString()).doesNotContain("agentbox-brokered-");
        JsonObject record = runs.get(runId);
        assertThat(record.getString("status")).isEqualTo("completed");
        assertThat(model.modelRequests()).isNotEmpty();
        assertThat(model.modelRequests())
                .allSatisfy(q -> assertThat(q.header("x-api-key")).contains(KEY));
        model.clearRequests();
        return record.getString("sandboxKey");
    }

    /** The sandbox's variable is a placeholder, and no file or process there holds the key. */
    private void assertTheKeyIsOnlyAtTheModel(String sandboxKey) {
        assertThat(sandboxes.stdout(sandboxKey, "printf %s \"$ANTHROPIC_API_KEY\""))
                .matches(PLACEHOLDER);
        assertThat(holders(sandboxKey, KEY)).as("where the sandbox holds the key").isEmpty();
    }

    /**
     * The files under the sandbox's writable places and the {@code /proc/<pid>/environ} and {@code
     * cmdline} of its processes that contain {@code value}. The value reaches the sandbox in two
     * halves joined by a shell builtin into a file grep reads its pattern from, so no command line
     * or environment of the search itself holds it.
     */
    private String holders(String sandboxKey, String value) {
        int half = value.length() / 2;
        String needle = "/tmp/.agentbox-needle";
        return sandboxes
                .stdout(
                        sandboxKey,
                        "a="
                                + ShellQuote.single(value.substring(0, half))
                                + "; b="
                                + ShellQuote.single(value.substring(half))
                                + "; printf '%s%s\\n' \"$a\" \"$b\" > "
                                + needle
                                + "; grep -rlsF -f "
                                + needle
                                + " /workspace /tmp /root /home /dev/shm /run /var/tmp /etc"
                                + " | grep -vxF "
                                + needle
                                + "; for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do"
                                + " grep -lsaF -f "
                                + needle
                                + " \"$f\"; done; rm -f "
                                + needle
                                + "; true")
                .strip();
    }
}
