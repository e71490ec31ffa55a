package dev.agentbox.it;

import static dev.agentbox.it.EgressWorld.ALLOWED;
import static dev.agentbox.it.EgressWorld.DENIED;
import static dev.agentbox.it.EgressWorld.GREETING;
import static dev.agentbox.it.EgressWorld.OTHER;
import static dev.agentbox.it.EgressWorld.egressBody;
import static dev.agentbox.it.EgressWorld.status;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code policy.network: egress} through the HTTP API (docs/egress.md; EG-01, EG-03, EG-05..EG-07):
 * the IT server pins the test names to an {@link OutsideHost} this class starts ({@link
 * EgressWorld}), so every request that passes the tenant's gateway ends at a container of this
 * test, and every refusal is paired with a success from the same sandbox — a refusal means the
 * policy, not a dead host. The gateways and internal networks of both tenants are removed before
 * (one an earlier run left may be of another image) and after.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SandboxEgressIT {

    /**
     * Allowed: {@link EgressWorld#ALLOWED} and {@link EgressWorld#DENIED} on port 80; denied:
     * {@link EgressWorld#DENIED} on 80 and 443. An entry may not be both allowed and denied as
     * written (400), so the allow names the port: deny wins over it.
     */
    private static final String ALLOW = "\"" + ALLOWED + "\",\"" + DENIED + ":80\"";

    private static final String DENY = "\"" + DENIED + "\"";

    private final Api api = Api.itServer();
    private final Sandboxes tenantA = new Sandboxes(api, Api.TENANT_A);
    private final Sandboxes tenantB = new Sandboxes(api, Api.TENANT_B);
    private OutsideHost web;
    private JsonObject sandbox;

    @BeforeAll
    void internetAndSandbox() {
        web = EgressWorld.start("");
        // gateways this test makes itself, from this server's image and files: not one an earlier
        // run left behind
        EgressWorld.removeGateways(EgressWorld.TENANT_A, EgressWorld.TENANT_B);
        sandbox = tenantA.ensure(egressBody("egress-" + UUID.randomUUID(), ALLOW, DENY));
    }

    @AfterAll
    void cleanUp() {
        try {
            tenantA.close();
            tenantB.close();
            EgressWorld.removeGateways(EgressWorld.TENANT_A, EgressWorld.TENANT_B);
        } finally {
            if (web != null) {
                web.close();
            }
        }
    }

    private String key() {
        return sandbox.getString("key");
    }

    @Test
    void anEgressSandboxReachesWhatItsPolicyAllowsAndNothingElseOnlyThroughItsTenantsNetwork() {
        String container = sandbox.getString("providerSandboxId");
        assertThat(tenantA.stdout(key(), "curl -s --max-time 10 http://" + ALLOWED + "/"))
                .contains(GREETING);
        assertThat(status(tenantA, key(), "http://" + ALLOWED + "/")).isEqualTo("200");
        // deny wins over the allow of the same host; a name nobody allowed; the allowed host on a
        // port its rule does not name
        assertThat(status(tenantA, key(), "http://" + DENIED + "/")).isEqualTo("403");
        assertThat(status(tenantA, key(), "http://" + OTHER + "/")).isEqualTo("403");
        // the same host by its address, bypassing the proxy: no route
        JsonObject direct =
                tenantA.exec(
                        key(),
                        "env -u HTTP_PROXY -u http_proxy curl -s --max-time 2 http://"
                                + web.address()
                                + "/");
        assertThat(direct.getInt("exitCode")).isNotZero();
        assertThat(direct.getString("stdout")).doesNotContain(GREETING);

        // on its tenant's internal network only: neither none nor bridge
        String network = EgressWorld.network(EgressWorld.TENANT_A);
        assertThat(DockerCli.ok("inspect", "-f", "{{.HostConfig.NetworkMode}}", container))
                .isEqualTo(network);
        assertThat(
                        DockerCli.ok(
                                "inspect",
                                "-f",
                                "{{range $n, $v := .NetworkSettings.Networks}}{{$n}} {{end}}",
                                container))
                .isEqualTo(network);
        assertThat(
                        DockerCli.ok(
                                "inspect",
                                "-f",
                                "{{index .Config.Labels \"dev.agentbox.network\"}}",
                                container))
                .isEqualTo("egress");
        assertThat(DockerCli.ok("network", "inspect", "-f", "{{.Internal}}", network))
                .isEqualTo("true");
        // the proxy by its gateway's fixed address on the network (no name lookup per request)
        String gatewayAddress =
                DockerCli.ok(
                                "inspect",
                                "-f",
                                "{{(index .NetworkSettings.Networks \""
                                        + network
                                        + "\").IPAddress}}",
                                EgressWorld.gateway(EgressWorld.TENANT_A))
                        .strip();
        assertThat(gatewayAddress).isNotEmpty();
        assertThat(tenantA.stdout(key(), "printenv HTTPS_PROXY").trim())
                .isEqualTo("http://" + gatewayAddress + ":3128");
    }

    @Test
    void aRunToldOfItsRefusedRequestGetsAnEgressDeniedChunkAndCompletes() {
        String runId = "egress-run-" + UUID.randomUUID();
        // the first thing the agent does is the refused request
        String command =
                "d=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 http://"
                        + DENIED
                        + "/);"
                        + " a=$(curl -s --max-time 10 http://"
                        + ALLOWED
                        + "/);"
                        + " printf '{\"denied\":\"%s\",\"allowed\":\"%s\"}\\n' \"$d\" \"$a\"";
        Runs runs = new Runs(api, Api.TENANT_A);
        runs.start(Runs.runBody(runId, "{\"key\":\"" + key() + "\"}", command, ""));
        List<SseClient.Event> transcript = runs.transcript(runId, null);
        assertThat(transcript.get(transcript.size() - 1).name()).isEqualTo("RUN_FINISHED");
        assertThat(runs.get(runId).getString("status")).isEqualTo("completed");

        List<JsonObject> log =
                Api.json(api.get(Runs.path(runId) + "/log", Api.TENANT_A)).asJsonArray().stream()
                        .map(e -> e.asJsonObject().getJsonObject("chunk"))
                        .toList();
        assertThat(log)
                .filteredOn(c -> "agent.output".equals(c.getString("name", null)))
                .singleElement()
                .satisfies(
                        c ->
                                assertThat(c.getJsonObject("value"))
                                        .isEqualTo(
                                                Json.createObjectBuilder()
                                                        .add("denied", "403")
                                                        .add("allowed", GREETING)
                                                        .build()));
        List<JsonValue> denied =
                log.stream()
                        .filter(
                                c ->
                                        "CUSTOM".equals(c.getString("type"))
                                                && "egress.denied"
                                                        .equals(c.getString("name", null)))
                        .map(c -> (JsonValue) c.get("value"))
                        .toList();
        assertThat(denied)
                .containsExactly(
                        Json.createObjectBuilder()
                                .add("host", DENIED)
                                .add("port", 80)
                                .add("count", 1)
                                .build());
    }

    @Test
    void anotherTenantsSandboxWithAnEmptyPolicyIsRefusedTheSameHost() {
        assertThat(status(tenantA, key(), "http://" + ALLOWED + "/")).isEqualTo("200");
        JsonObject b =
                tenantB.ensure(
                        "{\"definitionId\":\"egress-"
                                + UUID.randomUUID()
                                + "\",\"policy\":{\"network\":\"egress\"}}");
        assertThat(status(tenantB, b.getString("key"), "http://" + ALLOWED + "/")).isEqualTo("403");
        assertThat(
                        DockerCli.ok(
                                "inspect",
                                "-f",
                                "{{.HostConfig.NetworkMode}}",
                                b.getString("providerSandboxId")))
                .isEqualTo(EgressWorld.network(EgressWorld.TENANT_B))
                .isNotEqualTo(EgressWorld.network(EgressWorld.TENANT_A));
        // nor through tenant A's gateway, which is not on its network
        assertThat(
                        tenantB.stdout(
                                        b.getString("key"),
                                        "curl -s -o /dev/null -w '%{http_code}' --max-time 5 -x http://"
                                                + EgressWorld.gateway(EgressWorld.TENANT_A)
                                                + ":3128 http://"
                                                + ALLOWED
                                                + "/")
                                .trim())
                .isNotEqualTo("200");
    }

    @Test
    void destroyingASandboxRemovesItsRulesFromTheGateway() {
        JsonObject s = tenantA.ensure(egressBody("egress-" + UUID.randomUUID(), ALLOW, DENY));
        String container = s.getString("providerSandboxId");
        assertThat(status(tenantA, s.getString("key"), "http://" + ALLOWED + "/")).isEqualTo("200");
        String gateway = EgressWorld.gateway(EgressWorld.TENANT_A);
        String find = "grep -l -F '" + container + "' /etc/agentbox-egress/sandboxes/*.rules";
        assertThat(DockerCli.ok("exec", gateway, "sh", "-c", find)).isNotBlank();
        assertThat(tenantA.delete(s.getString("key")).statusCode()).isEqualTo(204);
        tenantA.forget(s.getString("key"));
        assertThat(DockerCli.run("exec", gateway, "sh", "-c", find).exitCode()).isNotZero();
        // the other sandbox of the tenant keeps its rules
        assertThat(status(tenantA, key(), "http://" + ALLOWED + "/")).isEqualTo("200");
    }
}
