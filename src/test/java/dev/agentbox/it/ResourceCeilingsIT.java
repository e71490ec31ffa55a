package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Ensure bodies a tenant can send to take more than its share, or to make the server fail:
 * resources above the configured ceilings, more CPUs than the engine has, ids that break columns
 * and log lines, control characters, NUL, numbers that wrap. Each is a 400 problem naming the field
 * (and the ceiling), never a 500, and creates nothing.
 */
class ResourceCeilingsIT {

    private final Api api = Api.itServer();
    private final Sandboxes sandboxes = new Sandboxes(api, Api.TENANT_A);

    @AfterEach
    void cleanUp() {
        sandboxes.close();
    }

    private static String withPolicy(String policy) {
        return "{\"definitionId\":\"ceil-" + UUID.randomUUID() + "\",\"policy\":" + policy + "}";
    }

    private JsonObject refused(String body, String field) {
        HttpResponse<String> r = sandboxes.ensureRaw(body);
        JsonObject problem = assertProblem(r, 400, "invalid-request");
        assertThat(problem.getString("field")).isEqualTo(field);
        assertThat(problem.getString("detail")).startsWith(field);
        return problem;
    }

    @Test
    void requestsAboveTheConfiguredCeilingsAreRefusedNamingFieldAndCeiling() {
        JsonObject cpus = refused(withPolicy("{\"cpus\":200}"), "policy.cpus");
        assertThat(cpus.getJsonNumber("ceiling").doubleValue()).isEqualTo(4.0);
        assertThat(
                        refused(withPolicy("{\"memoryMb\":100000}"), "policy.memoryMb")
                                .getInt("ceiling"))
                .isEqualTo(8192);
        assertThat(refused(withPolicy("{\"pids\":100000}"), "policy.pids").getInt("ceiling"))
                .isEqualTo(4096);
        assertThat(
                        refused(
                                        withPolicy(
                                                "{\"network\":\"bridge\",\"ports\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]}"),
                                        "policy.ports")
                                .getInt("ceiling"))
                .isEqualTo(16);
        assertThat(
                        refused(
                                        "{\"lifecycle\":{\"keepAliveMs\":1000000000000}}",
                                        "lifecycle.keepAliveMs")
                                .getJsonNumber("ceiling")
                                .longValue())
                .isEqualTo(86_400_000L);
    }

    @Test
    void moreCpusThanTheEngineHasIsA400NamingTheEnginesCount() {
        int engineCpus = Integer.parseInt(DockerCli.ok("info", "-f", "{{.NCPU}}"));
        if (engineCpus >= 4) {
            // the configured ceiling (4) is reached first on a big engine; covered above
            return;
        }
        JsonObject problem =
                refused(withPolicy("{\"cpus\":" + (engineCpus + 1) + "}"), "policy.cpus");
        assertThat(problem.getInt("ceiling")).isEqualTo(engineCpus);
        assertThat(problem.getString("detail")).doesNotContain("Range of CPUs");
    }

    @Test
    void aRequestAtTheCeilingsIsServed() {
        int engineCpus = Integer.parseInt(DockerCli.ok("info", "-f", "{{.NCPU}}"));
        JsonObject s =
                sandboxes.ensure(
                        "{\"definitionId\":\"ceil-"
                                + UUID.randomUUID()
                                + "\",\"image\":\"agentbox/sandbox:busybox\","
                                + "\"policy\":{\"memoryMb\":8192,\"pids\":4096,\"cpus\":"
                                + Math.min(engineCpus, 4)
                                + "},"
                                + "\"lifecycle\":{\"keepAliveMs\":86400000}}");
        assertThat(
                        DockerCli.ok(
                                "inspect",
                                "-f",
                                "{{.HostConfig.Memory}} {{.HostConfig.PidsLimit}}",
                                s.getString("providerSandboxId")))
                .isEqualTo(8192L * 1024 * 1024 + " 4096");
    }

    @Test
    void malformedIdsTextAndNumbersAre400NotServerErrors() {
        refused(
                "{\"threadId\":\"" + "t".repeat(300) + "\",\"lifecycle\":{\"reuse\":\"thread\"}}",
                "threadId");
        refused("{\"definitionId\":\"" + "d".repeat(201) + "\"}", "definitionId");
        refused("{\"definitionId\":\"ok\\r\\nINFO forged\"}", "definitionId");
        refused("{\"threadId\":\"t\\u0000\"}", "threadId");
        refused(
                "{\"workspace\":{\"source\":{\"type\":\"git\",\"url\":\"git://h/r\\n\"}}}",
                "workspace.source.url");
        refused(
                "{\"workspace\":{\"source\":{\"type\":\"git\",\"url\":\"git://h/r\",\"ref\":\"main\\u0000\"}}}",
                "workspace.source.ref");
        refused(
                "{\"workspace\":{\"source\":{\"type\":\"git\",\"url\":\"git://h/r\",\"depth\":-1}}}",
                "workspace.source.depth");
        refused("{\"workspace\":{\"setup\":[\"echo a\\u0000b\"]}}", "workspace.setup[0]");
        for (String policy :
                List.of("{\"memoryMb\":4294967302}", "{\"memoryMb\":-1}", "{\"memoryMb\":1e40}")) {
            refused(withPolicy(policy), "policy.memoryMb");
        }
        refused(withPolicy("{\"cpus\":-2}"), "policy.cpus");
        refused(withPolicy("{\"pids\":-4294967295}"), "policy.pids");
        refused(withPolicy("{\"network\":\"bridge\",\"ports\":[4294975488]}"), "policy.ports[0]");
    }
}
