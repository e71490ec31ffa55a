package dev.agentbox.it;

import static dev.agentbox.it.BadInputCase.of;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad input over every endpoint of the contract (docs/api.md): malformed, wrong-typed, unknown,
 * missing and oversized bodies, huge and negative numbers, control characters and over-long ids,
 * path tricks, wrong content types and methods. Every case must be answered, within a bound, with a
 * problem+json 4xx whose {@code status} matches the HTTP status, that carries a {@code code}, and
 * that shows neither internals (exception names, stack frames, SQL) nor a secret the request or the
 * sandbox holds. A 5xx is the bug this corpus exists to find: an input the server did not expect
 * reached a layer that failed on it.
 *
 * <p>One BusyBox sandbox (with a secret) and one finished run of tenant A are made once for the
 * class; cases that would change them target unknown keys instead.
 */
class BadInputCorpusIT {

    /** A value the sandbox holds as a secret: no response may contain it. */
    static final String SANDBOX_SECRET = "corpus-sandbox-secret-" + UUID.randomUUID();

    /** A secret sent in a request body that is refused: it must not be echoed either. */
    static final String REQUEST_SECRET = "corpus-request-secret-" + UUID.randomUUID();

    /** A wrong bearer token: an error must not echo it. */
    static final String WRONG_TOKEN = "corpus-wrong-token-" + UUID.randomUUID();

    private static final Duration TIMEOUT = Duration.ofSeconds(45);
    private static final Pattern INTERNALS =
            Pattern.compile(
                    "Exception|Error:|\\tat |at dev\\.agentbox|dev\\.agentbox\\.|java\\.[a-z]+\\.|jakarta\\.[a-z]+\\.|org\\.apache|com\\.ibm"
                            + "|com\\.github\\.dockerjava|SQLSTATE|SQLState|SELECT .* FROM|INSERT INTO|UPDATE .* SET|DELETE FROM"
                            + "|OCI runtime|<html|<HTML");

    private static final Api API = Api.itServer();
    private static final RawHttp RAW = new RawHttp(API.baseUrl());
    private static Sandboxes sandboxes;
    private static String key;
    private static String container;
    private static String runId;
    private static final String THREAD = "corpus-thread-" + UUID.randomUUID();
    private static final String AGENT = "corpus-agent-" + UUID.randomUUID();

    @BeforeAll
    static void makeSandboxAndRun() {
        sandboxes = new Sandboxes(API, Api.TENANT_A);
        JsonObject sandbox =
                sandboxes.ensure(
                        "{\"definitionId\":\"corpus-"
                                + UUID.randomUUID()
                                + "\",\"image\":\"agentbox/sandbox:busybox\","
                                + "\"workspace\":{\"secrets\":{\"CORPUS_SECRET\":\""
                                + SANDBOX_SECRET
                                + "\"}}}");
        key = sandbox.getString("key");
        container = sandbox.getString("providerSandboxId");
        runId = "corpus-run-" + UUID.randomUUID();
        Runs runs = new Runs(API, Api.TENANT_A);
        runs.start(
                "{\"runId\":\""
                        + runId
                        + "\",\"threadId\":\""
                        + THREAD
                        + "\",\"sandbox\":{\"key\":\""
                        + key
                        + "\"},"
                        + "\"harness\":\"command\",\"command\":\"echo '{\\\"delta\\\":\\\"hi\\\"}'\"}");
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .until(() -> !runs.get(runId).getString("status").equals("running"));
        // An agent whose endpoint the RunAgentInput rows post to; none of them starts a run.
        java.net.http.HttpResponse<String> agent =
                API.send(
                        API.request("/api/v1/agents/" + AGENT, Api.TENANT_A)
                                .header("Content-Type", "application/json")
                                .PUT(
                                        java.net.http.HttpRequest.BodyPublishers.ofString(
                                                "{\"sandbox\":{\"definitionId\":\"corpus-agent\","
                                                        + "\"image\":\"agentbox/sandbox:busybox\"},"
                                                        + "\"harness\":\"command\",\"command\":\"true\"}")));
        assertThat(agent.statusCode()).as(agent.body()).isEqualTo(201);
    }

    @AfterAll
    static void destroySandbox() {
        API.send(API.request("/api/v1/agents/" + AGENT, Api.TENANT_A).DELETE());
        if (sandboxes != null) {
            sandboxes.close();
        }
        // Also when a case left the server unable to answer the delete.
        if (container != null) {
            DockerCli.run("rm", "-f", container);
        }
    }

    static List<BadInputCase> corpus() {
        List<BadInputCase> c = new ArrayList<>();
        auth(c);
        pathTricks(c);
        providers(c);
        ensure(c);
        sandboxCrud(c);
        exec(c);
        processes(c);
        files(c);
        fileEventsSnapshotsForkPorts(c);
        runs(c);
        runReads(c);
        AgentBadInputs.add(c);
        admin(c);
        contentTypesAndMethods(c);
        oversized(c);
        return c;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void isRefusedWithAProblem4xxThatLeaksNothing(BadInputCase c) {
        String target =
                c.path.replace("{key}", key)
                        .replace("{run}", enc(runId))
                        .replace("{thread}", enc(THREAD))
                        .replace("{agent}", AGENT);
        Map<String, String> headers = new LinkedHashMap<>(c.headers);
        if (c.token != null) {
            headers.putIfAbsent("Authorization", "Bearer " + c.token);
        }
        byte[] body = c.body;
        if (body != null && body.length < (1 << 21)) {
            String text = new String(body, StandardCharsets.UTF_8);
            if (text.contains("{key}") || text.contains("{runId}")) {
                body =
                        text.replace("{key}", key)
                                .replace("{runId}", runId)
                                .getBytes(StandardCharsets.UTF_8);
            }
        }
        RawHttp.Response r = RAW.send(c.method, target, headers, body, c.chunked, TIMEOUT);
        undo(c, r);
        String shown =
                "["
                        + c.name
                        + "] "
                        + r.status()
                        + " "
                        + r.headers()
                        + " "
                        + RawHttp.abbreviate(r.body());

        assertThat(r.status()).as("status (4xx, never 5xx): %s", shown).isBetween(400, 499);
        if (c.status != 0) {
            assertThat(r.status()).as("status: %s", shown).isEqualTo(c.status);
        }
        if (!c.refusedBeforeTheApplication) {
            assertThat(r.header("Content-Type"))
                    .as("content type: %s", shown)
                    .isNotNull()
                    .startsWith("application/problem+json");
            JsonObject problem = Api.parse(r.body());
            assertThat(problem.getInt("status", -1))
                    .as("problem status: %s", shown)
                    .isEqualTo(r.status());
            assertThat(problem.getString("code", "")).as("problem code: %s", shown).isNotBlank();
            if (c.code != null) {
                assertThat(problem.getString("code"))
                        .as("problem code: %s", shown)
                        .isEqualTo(c.code);
            }
            c.members.forEach(
                    (name, value) ->
                            assertThat(problem.getString(name, null))
                                    .as("problem member %s: %s", name, shown)
                                    .isEqualTo(value));
        }
        assertThat(r.body())
                .as("internals in the body: %s", shown)
                .doesNotContainPattern(INTERNALS);
        assertThat(r.body() + r.headers())
                .as("secrets in the response: %s", shown)
                .doesNotContain(SANDBOX_SECRET)
                .doesNotContain(REQUEST_SECRET)
                .doesNotContain(WRONG_TOKEN)
                .doesNotContain(Api.TENANT_A)
                .doesNotContain(Api.TENANT_B)
                .doesNotContain(Api.ADMIN);
    }

    /**
     * A request the server wrongly accepted may have made a sandbox (ensure, an inline run) or
     * started a run: remove it now, so a failing case leaves nothing running.
     */
    private static void undo(BadInputCase c, RawHttp.Response r) {
        if (r.status() < 200 || r.status() > 299 || !r.body().startsWith("{")) {
            return;
        }
        JsonObject o = Api.parse(r.body());
        String token = c.token == null ? Api.TENANT_A : c.token;
        if (o.containsKey("runId") && c.path.equals("/api/v1/runs")) {
            API.send(
                    API.request(Runs.path(o.getString("runId")) + "/cancel", token)
                            .POST(java.net.http.HttpRequest.BodyPublishers.noBody()));
        } else if (o.containsKey("key") && !o.getString("key").equals(key)) {
            API.send(API.request("/api/v1/sandboxes/" + o.getString("key"), token).DELETE());
        }
    }

    /** Every endpoint family of docs/api.md has at least one row in the corpus. */
    @Test
    void theCorpusCoversEveryEndpointOfTheContract() {
        List<String> paths = corpus().stream().map(c -> c.method + " " + c.path).toList();
        for (String family :
                List.of(
                        "/providers",
                        "POST /api/v1/sandboxes",
                        "GET /api/v1/sandboxes/",
                        "DELETE /api/v1/sandboxes/",
                        "/exec",
                        "/processes",
                        "/stdin",
                        "?signal=",
                        "PATCH /api/v1/sandboxes/{key}/env",
                        "/output",
                        "/files?",
                        "/files/list",
                        "/files/stat",
                        "/files/mkdir",
                        "/files/move",
                        "DELETE /api/v1/sandboxes/{key}/files",
                        "PUT /api/v1/sandboxes/{key}/files",
                        "/file-events",
                        "/snapshots",
                        "/fork",
                        "/ports/",
                        "/proxy/",
                        "POST /api/v1/runs",
                        "GET /api/v1/runs?",
                        "GET /api/v1/runs/",
                        "/events",
                        "/log",
                        "/cancel",
                        "/active-run",
                        "PUT /api/v1/agents/",
                        "POST /api/v1/agents/",
                        "GET /api/v1/agents/",
                        "/interrupts/",
                        "/admin/reaper/sweep",
                        "/admin/reaper",
                        "/admin/journals/prune")) {
            assertThat(paths).as("a case for %s", family).anyMatch(p -> p.contains(family));
        }
    }

    // Rows, by endpoint family. S is a sandbox of tenant A, U an unknown sandbox key.
    private static final String S = "/api/v1/sandboxes/{key}";
    private static final String U = "/api/v1/sandboxes/no-such-sandbox";

    private static void auth(List<BadInputCase> c) {
        c.add(of("no token", "GET", "/api/v1/sandboxes").token(null).expect(401, "unauthorized"));
        c.add(
                of("wrong token is not echoed", "GET", "/api/v1/sandboxes")
                        .token(WRONG_TOKEN)
                        .expect(401, "unauthorized"));
        c.add(
                of("Basic instead of Bearer", "GET", "/api/v1/sandboxes")
                        .token(null)
                        .header("Authorization", "Basic dG9rZW4tYTp4")
                        .expect(401, "unauthorized"));
        c.add(
                of("empty bearer token", "GET", "/api/v1/sandboxes")
                        .token(null)
                        .header("Authorization", "Bearer ")
                        .expect(401, "unauthorized"));
        c.add(
                of("10k-character bearer token", "GET", "/api/v1/sandboxes")
                        .token("t".repeat(10_000))
                        .expect4xx());
        c.add(
                of("control character in the bearer token", "GET", "/api/v1/sandboxes")
                        .token("token-a\u0001")
                        .expect(401, "unauthorized"));
        c.add(
                of("another tenant's sandbox is not found", "GET", S)
                        .token(Api.TENANT_B)
                        .expect(404, "not-found"));
        c.add(
                of("another tenant's run is not found", "GET", "/api/v1/runs/{run}")
                        .token(Api.TENANT_B)
                        .expect(404, "not-found"));
    }

    private static void pathTricks(List<BadInputCase> c) {
        c.add(
                of("dot-dot from a sandbox to another tenant's run", "GET", S + "/../../runs/{run}")
                        .token(Api.TENANT_B)
                        .expect4xx());
        c.add(
                of(
                                "encoded dot-dot in a sandbox key",
                                "GET",
                                "/api/v1/sandboxes/%2e%2e/%2e%2e/runs/{run}")
                        .token(Api.TENANT_B)
                        .expect4xx());
        c.add(of("encoded slash in a sandbox key", "GET", "/api/v1/sandboxes/a%2fb").expect4xx());
        c.add(
                of("encoded NUL in a sandbox key", "GET", "/api/v1/sandboxes/a%00b")
                        .refusedBeforeTheApplication());
        c.add(
                of(
                                "encoded CR/LF in a sandbox key",
                                "GET",
                                "/api/v1/sandboxes/a%0d%0aX-Forged:%201")
                        .refusedBeforeTheApplication());
        c.add(
                of(
                                "raw control character in the request target",
                                "GET",
                                "/api/v1/sandboxes/a\u0001b")
                        .refusedBeforeTheApplication());
        c.add(
                of("10k-character sandbox key", "GET", "/api/v1/sandboxes/" + "k".repeat(10_000))
                        .expect4xx());
        c.add(
                of("matrix parameters on another tenant's sandbox", "GET", S + ";x=1")
                        .token(Api.TENANT_B)
                        .expect4xx());
        c.add(
                of("double slash on another tenant's sandbox", "GET", "/api/v1//sandboxes//{key}")
                        .token(Api.TENANT_B)
                        .expect4xx());
        c.add(
                of(
                                "exec on another tenant's sandbox through matrix parameters",
                                "POST",
                                "/api/v1/sandboxes;a=b/{key};c=d/exec")
                        .token(Api.TENANT_B)
                        .json("{\"command\":\"true\"}")
                        .expect4xx());
        c.add(
                of(
                                "files of another tenant through encoded dot-dot",
                                "GET",
                                "/api/v1/sandboxes/x/%2e%2e/{key}/files?path=/etc/hostname")
                        .token(Api.TENANT_B)
                        .expect4xx());
        c.add(
                of("run id with encoded slash and dot-dot", "GET", "/api/v1/runs/..%2f{run}")
                        .token(Api.TENANT_B)
                        .expect4xx());
        c.add(
                of("encoded NUL in a run id", "GET", "/api/v1/runs/r%00x")
                        .refusedBeforeTheApplication());
        c.add(
                of("encoded CR/LF in a run id", "GET", "/api/v1/runs/r%0d%0aINFO%20forged")
                        .refusedBeforeTheApplication());
        c.add(of("10k-character run id", "GET", "/api/v1/runs/" + "r".repeat(10_000)).expect4xx());
        c.add(
                of("unknown path under the API", "GET", "/api/v1/nothing-here")
                        .expect(404, "not-found"));
        c.add(of("unknown API version", "GET", "/api/v2/sandboxes").expect(404, "not-found"));
    }

    private static void providers(List<BadInputCase> c) {
        c.add(
                of("providers: DELETE", "DELETE", "/api/v1/providers")
                        .expect(405, "method-not-allowed"));
        c.add(
                of("providers: POST with a JSON body", "POST", "/api/v1/providers")
                        .json("{}")
                        .expect(405, "method-not-allowed"));
        c.add(
                of("providers: Accept image/png", "GET", "/api/v1/providers")
                        .header("Accept", "image/png")
                        .expect(406));
    }

    private static void ensure(List<BadInputCase> c) {
        String p = "/api/v1/sandboxes";
        c.add(
                of("ensure: malformed JSON", "POST", p)
                        .json("{\"definitionId\":")
                        .expect(400, "invalid-request"));
        c.add(of("ensure: a JSON array", "POST", p).json("[]").expect(400, "invalid-request"));
        c.add(
                of("ensure: a JSON string", "POST", p)
                        .json("\"sandbox\"")
                        .expect(400, "invalid-request"));
        c.add(of("ensure: a JSON number", "POST", p).json("42").expect(400, "invalid-request"));
        c.add(of("ensure: JSON null", "POST", p).json("null").expect(400, "invalid-request"));
        c.add(of("ensure: empty body", "POST", p).json("").expect(400, "invalid-request"));
        c.add(
                of("ensure: invalid UTF-8", "POST", p)
                        .body(
                                "application/json",
                                new byte[] {'{', '"', (byte) 0xC3, 0x28, '"', ':', '1', '}'})
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: raw NUL inside a JSON string", "POST", p)
                        .json("{\"definitionId\":\"a\u0000b\"}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: 100k-deep nesting", "POST", p)
                        .json("[".repeat(100_000) + "]".repeat(100_000))
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: definitionId a number", "POST", p)
                        .json("{\"definitionId\":5}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: definitionId of 1 MiB", "POST", p)
                        .json("{\"definitionId\":\"" + "d".repeat(1 << 20) + "\"}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: definitionId with CR/LF", "POST", p)
                        .json("{\"definitionId\":\"a\\r\\nINFO forged\"}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: definitionId with NUL", "POST", p)
                        .json("{\"definitionId\":\"a\\u0000b\"}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: unknown field", "POST", p)
                        .json("{\"definitionId\":\"x\",\"polcy\":{}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: image NotLowercase", "POST", p)
                        .json("{\"image\":\"NotLowercase\"}")
                        .expect(400));
        c.add(of("ensure: image an id prefix", "POST", p).json("{\"image\":\"4e5e\"}").expect(400));
        c.add(
                of("ensure: image with a registry host", "POST", p)
                        .json("{\"image\":\"127.0.0.1:1/x:y\"}")
                        .expect(400));
        c.add(
                of("ensure: image a number", "POST", p)
                        .json("{\"image\":7}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: provider unknown", "POST", p)
                        .json("{\"provider\":\"nope\"}")
                        .expect4xx());
        c.add(
                of("ensure: policy a string", "POST", p)
                        .json("{\"policy\":\"none\"}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: policy.network host", "POST", p)
                        .json("{\"policy\":{\"network\":\"host\"}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: policy.memoryMb a string", "POST", p)
                        .json("{\"policy\":{\"memoryMb\":\"lots\"}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: policy.memoryMb negative", "POST", p)
                        .json("{\"policy\":{\"memoryMb\":-5}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: policy.memoryMb huge", "POST", p)
                        .json("{\"policy\":{\"memoryMb\":99999999999999999999}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: policy.memoryMb 1 (below what the engine accepts)", "POST", p)
                        .json("{\"policy\":{\"memoryMb\":1}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: policy.cpus 200", "POST", p)
                        .json("{\"policy\":{\"cpus\":200}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: policy.cpus negative", "POST", p)
                        .json("{\"policy\":{\"cpus\":-1}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: policy.cpus 1e308", "POST", p)
                        .json("{\"policy\":{\"cpus\":1e308}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: policy.cpus 1e-9", "POST", p)
                        .json("{\"policy\":{\"cpus\":1e-9}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: policy.pids negative", "POST", p)
                        .json("{\"policy\":{\"pids\":-1}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: policy.pids 2^63", "POST", p)
                        .json("{\"policy\":{\"pids\":9223372036854775808}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: policy.pids a float", "POST", p)
                        .json("{\"policy\":{\"pids\":1.5}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: policy.ports 0", "POST", p)
                        .json("{\"policy\":{\"ports\":[0]}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: policy.ports 70000", "POST", p)
                        .json("{\"policy\":{\"ports\":[70000]}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: policy.ports a string", "POST", p)
                        .json("{\"policy\":{\"ports\":\"80\"}}")
                        .expect(400, "invalid-request"));
        StringBuilder many = new StringBuilder("[");
        for (int i = 1; i <= 20_000; i++) {
            many.append(i == 1 ? "" : ",").append(1024 + i % 60000);
        }
        c.add(
                of("ensure: policy.ports 20000 entries", "POST", p)
                        .json("{\"policy\":{\"ports\":" + many + "]}}")
                        .expect(400, "invalid-request"));
        egress(c, p);
        c.add(
                of("ensure: lifecycle.keepAliveMs negative", "POST", p)
                        .json("{\"lifecycle\":{\"keepAliveMs\":-1}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: lifecycle.keepAliveMs huge", "POST", p)
                        .json("{\"lifecycle\":{\"keepAliveMs\":1e30}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: lifecycle.reuse unknown", "POST", p)
                        .json("{\"lifecycle\":{\"reuse\":\"sometimes\"}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: reuse thread without threadId", "POST", p)
                        .json("{\"lifecycle\":{\"reuse\":\"thread\"}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: 300-character threadId with reuse thread", "POST", p)
                        .json(
                                "{\"threadId\":\""
                                        + "t".repeat(300)
                                        + "\",\"lifecycle\":{\"reuse\":\"thread\"}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: threadId with CR/LF and reuse thread", "POST", p)
                        .json(
                                "{\"threadId\":\"t\\r\\nWARN forged\",\"lifecycle\":{\"reuse\":\"thread\"}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: threadId with an escape character", "POST", p)
                        .json(
                                "{\"threadId\":\"t\\u001b[31m\",\"lifecycle\":{\"reuse\":\"thread\"}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: workspace an array", "POST", p)
                        .json("{\"workspace\":[]}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: workspace.setup an object", "POST", p)
                        .json("{\"workspace\":{\"setup\":{\"a\":1}}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: workspace.setup numbers", "POST", p)
                        .json("{\"workspace\":{\"setup\":[1,2]}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: workspace.env a list", "POST", p)
                        .json("{\"workspace\":{\"env\":[1]}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: workspace.env name with '='", "POST", p)
                        .json("{\"workspace\":{\"env\":{\"A=B\":\"x\"}}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: workspace.env value with NUL", "POST", p)
                        .json("{\"workspace\":{\"env\":{\"A\":\"x\\u0000y\"}}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: source type unknown", "POST", p)
                        .json("{\"workspace\":{\"source\":{\"type\":\"svn\"}}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: git source without url", "POST", p)
                        .json("{\"workspace\":{\"source\":{\"type\":\"git\"}}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: git depth negative", "POST", p)
                        .json(
                                "{\"workspace\":{\"source\":{\"type\":\"git\",\"url\":\"file:///nonexistent\",\"depth\":-1}}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: git depth huge", "POST", p)
                        .json(
                                "{\"workspace\":{\"source\":{\"type\":\"git\",\"url\":\"file:///nonexistent\",\"depth\":99999999999999999999}}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: a refused body does not echo its secrets", "POST", p)
                        .json(
                                "{\"workspace\":{\"secrets\":{\"K\":\""
                                        + REQUEST_SECRET
                                        + "\"}},\"policy\":{\"cpus\":200}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: secret name not an env name does not echo the value", "POST", p)
                        .json(
                                "{\"workspace\":{\"secrets\":{\"1 bad\":\""
                                        + REQUEST_SECRET
                                        + "\"}}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("ensure: secret value a number", "POST", p)
                        .json("{\"workspace\":{\"secrets\":{\"K\":5}}}")
                        .expect(400, "invalid-request"));
    }

    /** Egress policies: every refusal names its field, down to the entry's index. */
    private static void egress(List<BadInputCase> c, String p) {
        String egress = "{\"policy\":{\"network\":\"egress\",\"egress\":%s}}";
        c.add(
                of("ensure: policy.egress with network none", "POST", p)
                        .json("{\"policy\":{\"egress\":{\"allow\":[\"a.example\"]}}}")
                        .expect(400, "invalid-request")
                        .field("policy.egress"));
        c.add(
                of("ensure: policy.egress with network bridge", "POST", p)
                        .json("{\"policy\":{\"network\":\"bridge\",\"egress\":{}}}")
                        .expect(400, "invalid-request")
                        .field("policy.egress"));
        c.add(
                of("ensure: policy.egress an array", "POST", p)
                        .json(egress.formatted("[\"a.example\"]"))
                        .expect(400, "invalid-request")
                        .field("policy.egress"));
        c.add(
                of("ensure: policy.egress unknown member", "POST", p)
                        .json(egress.formatted("{\"allowed\":[\"a.example\"]}"))
                        .expect(400, "invalid-request")
                        .field("policy.egress.allowed"));
        c.add(
                of("ensure: policy.egress.allow a string", "POST", p)
                        .json(egress.formatted("{\"allow\":\"a.example\"}"))
                        .expect(400, "invalid-request")
                        .field("policy.egress.allow"));
        c.add(
                of("ensure: policy.egress.allow *.com", "POST", p)
                        .json(egress.formatted("{\"allow\":[\"a.example\",\"*.com\"]}"))
                        .expect(400, "invalid-request")
                        .field("policy.egress.allow[1]"));
        c.add(
                of("ensure: policy.egress.allow a bare *", "POST", p)
                        .json(egress.formatted("{\"allow\":[\"*\"]}"))
                        .expect(400, "invalid-request")
                        .field("policy.egress.allow[0]"));
        c.add(
                of("ensure: policy.egress.allow a URL", "POST", p)
                        .json(egress.formatted("{\"allow\":[\"https://a.example/x\"]}"))
                        .expect(400, "invalid-request")
                        .field("policy.egress.allow[0]"));
        c.add(
                of("ensure: policy.egress.allow with userinfo", "POST", p)
                        .json(egress.formatted("{\"allow\":[\"user:pw@a.example\"]}"))
                        .expect(400, "invalid-request")
                        .field("policy.egress.allow[0]"));
        c.add(
                of("ensure: policy.egress.allow an IP literal", "POST", p)
                        .json(egress.formatted("{\"allow\":[\"169.254.169.254\"]}"))
                        .expect(400, "invalid-request")
                        .field("policy.egress.allow[0]"));
        c.add(
                of("ensure: policy.egress.allow an IPv6 literal", "POST", p)
                        .json(egress.formatted("{\"allow\":[\"[::1]:443\"]}"))
                        .expect(400, "invalid-request")
                        .field("policy.egress.allow[0]"));
        c.add(
                of("ensure: policy.egress.allow port 0", "POST", p)
                        .json(egress.formatted("{\"allow\":[\"a.example:0\"]}"))
                        .expect(400, "invalid-request")
                        .field("policy.egress.allow[0]"));
        c.add(
                of("ensure: policy.egress.allow with CR/LF", "POST", p)
                        .json(egress.formatted("{\"allow\":[\"a.example\\r\\nINFO forged\"]}"))
                        .expect(400, "invalid-request")
                        .field("policy.egress.allow[0]"));
        c.add(
                of("ensure: policy.egress.allow an entry of 1 MiB", "POST", p)
                        .json(egress.formatted("{\"allow\":[\"" + "a".repeat(1 << 20) + "\"]}"))
                        .expect(400, "invalid-request")
                        .field("policy.egress.allow[0]"));
        c.add(
                of("ensure: policy.egress.allow a secret-looking entry is not echoed", "POST", p)
                        .json(
                                egress.formatted(
                                        "{\"allow\":[\"" + REQUEST_SECRET + "@a.example\"]}"))
                        .expect(400, "invalid-request")
                        .field("policy.egress.allow[0]"));
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 20_000; i++) {
            many.append(i == 0 ? "" : ",").append("\"h").append(i).append(".example\"");
        }
        c.add(
                of("ensure: policy.egress.allow 20000 entries", "POST", p)
                        .json(egress.formatted("{\"allow\":[" + many + "]}"))
                        .expect(400, "invalid-request")
                        .field("policy.egress.allow"));
        c.add(
                of("ensure: policy.egress.deny a number", "POST", p)
                        .json(egress.formatted("{\"deny\":[7]}"))
                        .expect(400, "invalid-request")
                        .field("policy.egress.deny[0]"));
        c.add(
                of("ensure: policy.egress.allow repeats an entry", "POST", p)
                        .json(
                                egress.formatted(
                                        "{\"allow\":[\"api.anthropic.com\",\"API.Anthropic.com.\"]}"))
                        .expect(400, "invalid-request")
                        .field("policy.egress.allow[1]"));
        c.add(
                of("ensure: policy.egress.deny repeats an allowed entry", "POST", p)
                        .json(
                                egress.formatted(
                                        "{\"allow\":[\"a.example\"],\"deny\":[\"A.example\"]}"))
                        .expect(400, "invalid-request")
                        .field("policy.egress.deny[0]"));
        c.add(
                of("ensure: policy.egress with ports", "POST", p)
                        .json("{\"policy\":{\"network\":\"egress\",\"ports\":[8080]}}")
                        .expect(400, "invalid-request")
                        .field("policy.ports"));
        c.add(
                of("ensure: egress on the local provider", "POST", p)
                        .json(
                                "{\"provider\":\"local\",\"definitionId\":\"corpus-egress-"
                                        + UUID.randomUUID()
                                        + "\",\"policy\":{\"network\":\"egress\","
                                        + "\"egress\":{\"allow\":[\"api.anthropic.com\"]}}}")
                        .expect(422, "unsupported-capability")
                        .member("provider", "local")
                        .member("capability", "networkPolicy"));
    }

    private static void sandboxCrud(List<BadInputCase> c) {
        c.add(of("sandbox: get unknown", "GET", U).expect(404, "not-found"));
        c.add(of("sandbox: delete unknown", "DELETE", U).expect(404, "not-found"));
        c.add(
                of("sandbox: delete unknown with CR/LF", "DELETE", U + "%0d%0aINFO%20forged")
                        .refusedBeforeTheApplication());
        c.add(
                of("sandbox: delete another tenant's", "DELETE", S)
                        .token(Api.TENANT_B)
                        .expect(404, "not-found"));
        c.add(
                of("sandboxes: PATCH", "PATCH", "/api/v1/sandboxes")
                        .json("{}")
                        .expect(405, "method-not-allowed"));
        c.add(of("sandbox: PUT", "PUT", S).json("{}").expect(405, "method-not-allowed"));
        String env = S + "/env";
        c.add(
                of("env: malformed JSON", "PATCH", env)
                        .json("{\"env\":")
                        .expect(400, "invalid-request"));
        c.add(of("env: a JSON array", "PATCH", env).json("[]").expect(400, "invalid-request"));
        c.add(of("env: nothing to change", "PATCH", env).json("{}").expect(400, "invalid-request"));
        c.add(
                of("env: a name that is not a shell name", "PATCH", env)
                        .json("{\"env\":{\"A B\":\"x\"}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("env: a secret value that is a number", "PATCH", env)
                        .json("{\"secrets\":{\"S\":1}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("env: a value with NUL", "PATCH", env)
                        .json("{\"env\":{\"A\":\"a\\u0000b\"}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("env: unknown member", "PATCH", env)
                        .json("{\"env\":{\"A\":\"x\"},\"workspace\":{}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("env: another tenant's sandbox", "PATCH", env)
                        .token(Api.TENANT_B)
                        .json("{\"env\":{\"A\":\"x\"}}")
                        .expect(404, "not-found"));
        c.add(
                of("env: unknown sandbox", "PATCH", U + "/env")
                        .json("{\"env\":{\"A\":\"x\"}}")
                        .expect(404, "not-found"));
    }

    private static void exec(List<BadInputCase> c) {
        String p = S + "/exec";
        c.add(
                of("exec: malformed JSON", "POST", p)
                        .json("{\"command\":")
                        .expect(400, "invalid-request"));
        c.add(of("exec: a JSON array", "POST", p).json("[\"ls\"]").expect(400, "invalid-request"));
        c.add(of("exec: a JSON string", "POST", p).json("\"ls\"").expect(400, "invalid-request"));
        c.add(of("exec: a JSON number", "POST", p).json("1").expect(400, "invalid-request"));
        c.add(of("exec: empty body", "POST", p).json("").expect(400, "invalid-request"));
        c.add(of("exec: missing command", "POST", p).json("{}").expect(400, "invalid-request"));
        c.add(
                of("exec: command a number", "POST", p)
                        .json("{\"command\":5}")
                        .expect(400, "invalid-request"));
        c.add(
                of("exec: command an array", "POST", p)
                        .json("{\"command\":[\"ls\"]}")
                        .expect(400, "invalid-request"));
        c.add(
                of("exec: command with NUL", "POST", p)
                        .json("{\"command\":\"echo a\\u0000b\"}")
                        .expect(400, "invalid-request"));
        c.add(
                of("exec: unknown field", "POST", p)
                        .json("{\"command\":\"true\",\"timeoutMS\":1}")
                        .expect(400, "invalid-request"));
        c.add(
                of("exec: timeoutMs negative", "POST", p)
                        .json("{\"command\":\"true\",\"timeoutMs\":-1}")
                        .expect(400, "invalid-request"));
        c.add(
                of("exec: timeoutMs zero", "POST", p)
                        .json("{\"command\":\"true\",\"timeoutMs\":0}")
                        .expect(400, "invalid-request"));
        c.add(
                of("exec: timeoutMs 2^64", "POST", p)
                        .json("{\"command\":\"true\",\"timeoutMs\":18446744073709551616}")
                        .expect(400, "invalid-request"));
        c.add(
                of("exec: timeoutMs 1e400", "POST", p)
                        .json("{\"command\":\"true\",\"timeoutMs\":1e400}")
                        .expect(400, "invalid-request"));
        c.add(
                of("exec: timeoutMs a string", "POST", p)
                        .json("{\"command\":\"true\",\"timeoutMs\":\"soon\"}")
                        .expect(400, "invalid-request"));
        c.add(
                of("exec: timeoutMs a float", "POST", p)
                        .json("{\"command\":\"true\",\"timeoutMs\":1.5}")
                        .expect(400, "invalid-request"));
        c.add(
                of("exec: env a list", "POST", p)
                        .json("{\"command\":\"true\",\"env\":[\"A=1\"]}")
                        .expect(400, "invalid-request"));
        c.add(
                of("exec: env value a number", "POST", p)
                        .json("{\"command\":\"true\",\"env\":{\"A\":{}}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("exec: env name with '='", "POST", p)
                        .json("{\"command\":\"true\",\"env\":{\"A=B\":\"x\"}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("exec: env value with NUL", "POST", p)
                        .json("{\"command\":\"true\",\"env\":{\"A\":\"x\\u0000y\"}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("exec: cwd with NUL", "POST", p)
                        .json("{\"command\":\"true\",\"cwd\":\"/tmp\\u0000x\"}")
                        .expect(400, "invalid-request"));
        c.add(
                of("exec: cwd a number", "POST", p)
                        .json("{\"command\":\"true\",\"cwd\":3}")
                        .expect(400, "invalid-request"));
        c.add(
                of("exec: unknown sandbox", "POST", U + "/exec")
                        .json("{\"command\":\"true\"}")
                        .expect(404, "not-found"));
        c.add(of("exec: GET", "GET", p).expect(405, "method-not-allowed"));
    }

    private static void processes(List<BadInputCase> c) {
        String p = S + "/processes";
        c.add(of("processes: malformed JSON", "POST", p).json("{").expect(400, "invalid-request"));
        c.add(of("processes: a JSON array", "POST", p).json("[]").expect(400, "invalid-request"));
        c.add(
                of("processes: missing command", "POST", p)
                        .json("{}")
                        .expect(400, "invalid-request"));
        c.add(
                of("processes: command a number", "POST", p)
                        .json("{\"command\":5}")
                        .expect(400, "invalid-request"));
        c.add(
                of("processes: timeoutMs not supported", "POST", p)
                        .json("{\"command\":\"sleep 1\",\"timeoutMs\":10}")
                        .expect(400, "invalid-request"));
        c.add(
                of("processes: unknown field", "POST", p)
                        .json("{\"command\":\"true\",\"detach\":true}")
                        .expect(400, "invalid-request"));
        c.add(
                of("processes: env value with NUL", "POST", p)
                        .json("{\"command\":\"true\",\"env\":{\"A\":\"\\u0000\"}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("processes: output of an unknown pid", "GET", p + "/no-such-pid/output")
                        .expect(404, "not-found"));
        c.add(
                of("processes: output of a negative pid", "GET", p + "/-1/output")
                        .expect(404, "not-found"));
        c.add(
                of("processes: output of a 2^64 pid", "GET", p + "/18446744073709551616/output")
                        .expect(404, "not-found"));
        c.add(
                of("processes: output of a pid with encoded NUL", "GET", p + "/1%00/output")
                        .refusedBeforeTheApplication());
        c.add(
                of("processes: output of a pid with dot-dot", "GET", p + "/%2e%2e/output")
                        .expect4xx());
        c.add(
                of("processes: stdin to an unknown pid", "POST", p + "/no-such-pid/stdin")
                        .body("text/plain", "x".getBytes())
                        .expect4xx());
        c.add(
                of("processes: kill an unknown pid", "DELETE", p + "/no-such-pid")
                        .expect(404, "not-found"));
        c.add(
                of(
                                "processes: kill with a signal outside the set",
                                "DELETE",
                                p + "/no-such-pid?signal=SEGV")
                        .expect(400, "invalid-request"));
        c.add(
                of("processes: kill with a numeric signal", "DELETE", p + "/no-such-pid?signal=9")
                        .expect(400, "invalid-request"));
        c.add(
                of(
                                "processes: kill an unknown pid with a signal",
                                "DELETE",
                                p + "/no-such-pid?signal=INT")
                        .expect(404, "not-found"));
        c.add(
                of("processes: stdin eof not a boolean", "POST", p + "/no-such-pid/stdin?eof=maybe")
                        .body("text/plain", "x".getBytes())
                        .expect(400, "invalid-request"));
        c.add(
                of("processes: kill a 10k-character pid", "DELETE", p + "/" + "9".repeat(10_000))
                        .expect4xx());
        c.add(
                of("processes: in an unknown sandbox", "POST", U + "/processes")
                        .json("{\"command\":\"true\"}")
                        .expect(404, "not-found"));
        c.add(of("processes: GET the collection", "GET", p).expect(405, "method-not-allowed"));
    }

    private static void files(List<BadInputCase> c) {
        String f = S + "/files";
        c.add(of("files: read without path", "GET", f).expect(400, "invalid-request"));
        c.add(
                of("files: read with empty path", "GET", f + "?path=")
                        .expect(400, "invalid-request"));
        c.add(
                of("files: read with NUL in path", "GET", f + "?path=/etc/hostname%00x")
                        .expect(400, "invalid-request"));
        c.add(
                of("files: read with CR/LF in path", "GET", f + "?path=/x%0d%0aINFO%20forged")
                        .expect4xx());
        c.add(
                of("files: read of a missing file", "GET", f + "?path=/no/such/file")
                        .expect(404, "not-found"));
        c.add(
                of("files: read of a 10k-character path", "GET", f + "?path=/" + "p".repeat(10_000))
                        .expect4xx());
        c.add(of("files: read of a directory", "GET", f + "?path=/").expect4xx());
        c.add(
                of("files: read of a device (/dev/zero) is refused", "GET", f + "?path=/dev/zero")
                        .expect(413, "file-too-large"));
        c.add(
                of("files: read of a device (/dev/null) is refused", "GET", f + "?path=/dev/null")
                        .expect(413, "file-too-large"));
        c.add(
                of("files: read in an unknown sandbox", "GET", U + "/files?path=/etc/hostname")
                        .expect(404, "not-found"));
        c.add(
                of("files: write without path", "PUT", f)
                        .body("application/octet-stream", "x".getBytes())
                        .expect(400, "invalid-request"));
        c.add(
                of("files: write with NUL in path", "PUT", f + "?path=/tmp/a%00b")
                        .body("application/octet-stream", "x".getBytes())
                        .expect(400, "invalid-request"));
        c.add(
                of("files: write over a directory", "PUT", f + "?path=/tmp")
                        .body("application/octet-stream", "x".getBytes())
                        .expect4xx());
        c.add(
                of("files: write below a regular file", "PUT", f + "?path=/etc/hostname/x")
                        .body("application/octet-stream", "x".getBytes())
                        .expect4xx());
        c.add(of("files: delete without path", "DELETE", f).expect(400, "invalid-request"));
        c.add(
                of("files: delete with NUL in path", "DELETE", f + "?path=/tmp/a%00b")
                        .expect(400, "invalid-request"));
        c.add(
                of("files: list of a missing directory", "GET", f + "/list?path=/no/such/dir")
                        .expect(404, "not-found"));
        c.add(
                of("files: list with NUL in path", "GET", f + "/list?path=/tmp%00")
                        .expect(400, "invalid-request"));
        c.add(
                of("files: list of a regular file", "GET", f + "/list?path=/etc/hostname")
                        .expect4xx());
        c.add(of("files: stat without path", "GET", f + "/stat").expect(400, "invalid-request"));
        c.add(
                of("files: stat with NUL in path", "GET", f + "/stat?path=/tmp%00")
                        .expect(400, "invalid-request"));
        c.add(
                of("files: stat of a missing file", "GET", f + "/stat?path=/no/such/file")
                        .expect(404, "not-found"));
        c.add(
                of(
                                "files: stat of a 10k-character path",
                                "GET",
                                f + "/stat?path=/" + "p".repeat(10_000))
                        .expect4xx());
        c.add(
                of("files: mkdir malformed JSON", "POST", f + "/mkdir")
                        .json("{\"path\"")
                        .expect(400, "invalid-request"));
        c.add(
                of("files: mkdir a JSON array", "POST", f + "/mkdir")
                        .json("[\"/tmp/x\"]")
                        .expect(400, "invalid-request"));
        c.add(
                of("files: mkdir a JSON string", "POST", f + "/mkdir")
                        .json("\"/tmp/x\"")
                        .expect(400, "invalid-request"));
        c.add(
                of("files: mkdir without path", "POST", f + "/mkdir")
                        .json("{}")
                        .expect(400, "invalid-request"));
        c.add(
                of("files: mkdir path a number", "POST", f + "/mkdir")
                        .json("{\"path\":5}")
                        .expect(400, "invalid-request"));
        c.add(
                of("files: mkdir path with NUL", "POST", f + "/mkdir")
                        .json("{\"path\":\"/tmp/a\\u0000b\"}")
                        .expect(400, "invalid-request"));
        c.add(
                of("files: mkdir unknown field", "POST", f + "/mkdir")
                        .json("{\"path\":\"/tmp/x\",\"mode\":511}")
                        .expect(400, "invalid-request"));
        c.add(
                of("files: mkdir over a regular file", "POST", f + "/mkdir")
                        .json("{\"path\":\"/etc/hostname/sub\"}")
                        .expect4xx());
        c.add(
                of("files: mkdir text/plain", "POST", f + "/mkdir")
                        .body("text/plain", "/tmp/x".getBytes())
                        .expect(415));
        c.add(
                of("files: move malformed JSON", "POST", f + "/move")
                        .json("{\"from\":")
                        .expect(400, "invalid-request"));
        c.add(
                of("files: move without to", "POST", f + "/move")
                        .json("{\"from\":\"/tmp/a\"}")
                        .expect(400, "invalid-request"));
        c.add(
                of("files: move empty object", "POST", f + "/move")
                        .json("{}")
                        .expect(400, "invalid-request"));
        c.add(
                of("files: move numbers", "POST", f + "/move")
                        .json("{\"from\":1,\"to\":2}")
                        .expect(400, "invalid-request"));
        c.add(
                of("files: move from a missing file", "POST", f + "/move")
                        .json("{\"from\":\"/no/such/file\",\"to\":\"/tmp/y\"}")
                        .expect(404, "not-found"));
        c.add(
                of("files: move with NUL", "POST", f + "/move")
                        .json("{\"from\":\"/tmp/a\\u0000\",\"to\":\"/tmp/b\"}")
                        .expect(400, "invalid-request"));
        c.add(
                of("files: move unknown field", "POST", f + "/move")
                        .json("{\"from\":\"/tmp/a\",\"to\":\"/tmp/b\",\"force\":true}")
                        .expect(400, "invalid-request"));
        c.add(
                of("files: POST to the file", "POST", f + "?path=/tmp/x")
                        .json("{}")
                        .expect(405, "method-not-allowed"));
    }

    private static void fileEventsSnapshotsForkPorts(List<BadInputCase> c) {
        c.add(
                of("file-events: unknown sandbox", "GET", U + "/file-events")
                        .header("Accept", "text/event-stream")
                        .expect(404, "not-found"));
        c.add(
                of("file-events: another tenant's sandbox", "GET", S + "/file-events")
                        .token(Api.TENANT_B)
                        .header("Accept", "text/event-stream")
                        .expect(404, "not-found"));
        c.add(
                of("file-events: POST", "POST", S + "/file-events")
                        .json("{}")
                        .expect(405, "method-not-allowed"));
        c.add(of("snapshots: unknown sandbox", "POST", U + "/snapshots").expect(404, "not-found"));
        c.add(
                of("snapshots: another tenant's sandbox", "POST", S + "/snapshots")
                        .token(Api.TENANT_B)
                        .expect(404, "not-found"));
        c.add(of("snapshots: GET", "GET", S + "/snapshots").expect(405, "method-not-allowed"));
        c.add(of("fork: unknown sandbox", "POST", U + "/fork").expect(404, "not-found"));
        c.add(
                of("fork: another tenant's sandbox", "POST", S + "/fork")
                        .token(Api.TENANT_B)
                        .expect(404, "not-found"));
        c.add(of("fork: GET", "GET", S + "/fork").expect(405, "method-not-allowed"));
        c.add(of("ports: 0", "GET", S + "/ports/0").expect(400, "invalid-request"));
        c.add(of("ports: 70000", "GET", S + "/ports/70000").expect(400, "invalid-request"));
        c.add(of("ports: negative", "GET", S + "/ports/-1").expect(400, "invalid-request"));
        c.add(of("ports: 2^31", "GET", S + "/ports/2147483648").expect4xx());
        c.add(of("ports: not a number", "GET", S + "/ports/http").expect4xx());
        c.add(of("ports: unknown sandbox", "GET", U + "/ports/8080").expect(404, "not-found"));
        c.add(of("proxy: port 0", "GET", S + "/ports/0/proxy/").expect(400, "invalid-request"));
        c.add(
                of("proxy: port 70000", "POST", S + "/ports/70000/proxy/x")
                        .json("{}")
                        .expect(400, "invalid-request"));
        c.add(
                of("proxy: not a number", "GET", S + "/ports/http/proxy/")
                        .expect(400, "invalid-request"));
        c.add(
                of("proxy: unknown sandbox", "DELETE", U + "/ports/8080/proxy/a?b=c")
                        .expect(404, "not-found"));
        c.add(
                of("proxy: another tenant's sandbox", "GET", S + "/ports/8080/proxy/")
                        .token(Api.TENANT_B)
                        .expect(404, "not-found"));
    }

    private static void runs(List<BadInputCase> c) {
        String p = "/api/v1/runs";
        String sb = "\"sandbox\":{\"key\":\"{key}\"}";
        c.add(
                of("runs: malformed JSON", "POST", p)
                        .json("{\"runId\":")
                        .expect(400, "invalid-request"));
        c.add(of("runs: a JSON array", "POST", p).json("[]").expect(400, "invalid-request"));
        c.add(of("runs: a JSON string", "POST", p).json("\"run\"").expect(400, "invalid-request"));
        c.add(of("runs: a JSON number", "POST", p).json("3").expect(400, "invalid-request"));
        c.add(of("runs: JSON null", "POST", p).json("null").expect(400, "invalid-request"));
        c.add(of("runs: empty body", "POST", p).json("").expect(400, "invalid-request"));
        c.add(of("runs: empty object", "POST", p).json("{}").expect4xx());
        c.add(
                of("runs: malformed JSON streamed", "POST", p)
                        .header("Accept", "text/event-stream")
                        .json("{")
                        .expect(400, "invalid-request"));
        c.add(
                of("runs: missing runId of a durable run", "POST", p)
                        .json(run(null, "t", sb))
                        .expect(400, "run-id-required"));
        c.add(
                of("runs: missing threadId", "POST", p)
                        .json(
                                "{\"runId\":\"r-x\","
                                        + sb
                                        + ",\"harness\":\"command\",\"command\":\"true\"}")
                        .expect(400, "invalid-request"));
        c.add(
                of("runs: runId a number", "POST", p)
                        .json(run("5", "t", sb).replace("\"5\"", "5"))
                        .expect(400, "invalid-request"));
        c.add(
                of("runs: 300-character runId", "POST", p)
                        .json(run("r".repeat(300), "t", sb))
                        .expect(400, "invalid-request"));
        c.add(
                of("runs: 10k-character runId", "POST", p)
                        .json(run("r".repeat(10_000), "t", sb))
                        .expect(400, "invalid-request"));
        c.add(
                of("runs: runId with CR/LF", "POST", p)
                        .json(run("r\\r\\nINFO forged", "t", sb))
                        .expect(400, "invalid-request"));
        c.add(
                of("runs: runId with NUL", "POST", p)
                        .json(run("r\\u0000x", "t", sb))
                        .expect(400, "invalid-request"));
        c.add(
                of("runs: runId with an escape character", "POST", p)
                        .json(run("r\\u001b[2J", "t", sb))
                        .expect(400, "invalid-request"));
        c.add(
                of("runs: 300-character threadId", "POST", p)
                        .json(run("r-" + UUID.randomUUID(), "t".repeat(300), sb))
                        .expect(400, "invalid-request"));
        c.add(
                of("runs: threadId with CR/LF", "POST", p)
                        .json(run("r-" + UUID.randomUUID(), "t\\nx", sb))
                        .expect(400, "invalid-request"));
        c.add(
                of("runs: sandbox a string", "POST", p)
                        .json(run("r-" + UUID.randomUUID(), "t", "\"sandbox\":\"{key}\""))
                        .expect(400, "invalid-request"));
        c.add(
                of("runs: sandbox.key a number", "POST", p)
                        .json(run("r-" + UUID.randomUUID(), "t", "\"sandbox\":{\"key\":5}"))
                        .expect(400, "invalid-request"));
        c.add(
                of("runs: sandbox key unknown", "POST", p)
                        .json(
                                run(
                                        "r-" + UUID.randomUUID(),
                                        "t",
                                        "\"sandbox\":{\"key\":\"no-such-sandbox\"}"))
                        .expect(404, "not-found"));
        c.add(
                of("runs: sandbox of another tenant", "POST", p)
                        .token(Api.TENANT_B)
                        .json(run("r-" + UUID.randomUUID(), "t", sb))
                        .expect(404, "not-found"));
        c.add(
                of("runs: inline sandbox with cpus 200", "POST", p)
                        .json(
                                run(
                                        "r-" + UUID.randomUUID(),
                                        "t",
                                        "\"sandbox\":{\"policy\":{\"cpus\":200}}"))
                        .expect(400, "invalid-request"));
        c.add(
                of("runs: inline sandbox with an egress entry *.com", "POST", p)
                        .json(
                                run(
                                        "r-" + UUID.randomUUID(),
                                        "t",
                                        "\"sandbox\":{\"policy\":{\"network\":\"egress\","
                                                + "\"egress\":{\"allow\":[\"*.com\"]}}}"))
                        .expect(400, "invalid-request")
                        .field("sandbox.policy.egress.allow[0]"));
        c.add(
                of("runs: inline sandbox with image NotLowercase", "POST", p)
                        .json(
                                run(
                                        "r-" + UUID.randomUUID(),
                                        "t",
                                        "\"sandbox\":{\"image\":\"NotLowercase\"}"))
                        .expect(400));
        c.add(
                of("runs: harness unknown", "POST", p)
                        .json(
                                run("r-" + UUID.randomUUID(), "t", sb)
                                        .replace("\"command\",", "\"bash\","))
                        .expect(400, "invalid-request"));
        c.add(
                of("runs: durable a string", "POST", p)
                        .json(run("r-" + UUID.randomUUID(), "t", sb + ",\"durable\":\"yes\""))
                        .expect(400, "invalid-request"));
        c.add(
                of("runs: maxDurationMs negative", "POST", p)
                        .json(run("r-" + UUID.randomUUID(), "t", sb + ",\"maxDurationMs\":-1"))
                        .expect(400, "invalid-request"));
        c.add(
                of("runs: maxDurationMs 1e30", "POST", p)
                        .json(run("r-" + UUID.randomUUID(), "t", sb + ",\"maxDurationMs\":1e30"))
                        .expect(400, "invalid-request"));
        c.add(
                of("runs: unknown field", "POST", p)
                        .json(run("r-" + UUID.randomUUID(), "t", sb + ",\"comand\":\"x\""))
                        .expect(400, "invalid-request"));
        c.add(
                of("runs: approvals not an array", "POST", p)
                        .json(run("r-" + UUID.randomUUID(), "t", sb + ",\"approvals\":{}"))
                        .expect(400, "invalid-request")
                        .field("approvals"));
        c.add(
                of("runs: an approval rule without its tool", "POST", p)
                        .json(
                                run(
                                        "r-" + UUID.randomUUID(),
                                        "t",
                                        sb + ",\"approvals\":[{\"decision\":\"ask\"}]"))
                        .expect(400, "invalid-request")
                        .field("approvals[0].tool"));
        c.add(
                of("runs: an approval rule with an unknown decision", "POST", p)
                        .json(
                                run(
                                        "r-" + UUID.randomUUID(),
                                        "t",
                                        sb
                                                + ",\"approvals\":[{\"tool\":\"*\",\"decision\":\"allow\"},"
                                                + "{\"tool\":\"Bash\",\"decision\":\"maybe\"}]"))
                        .expect(400, "invalid-request")
                        .field("approvals[1].decision"));
        c.add(
                of("runs: runId already used", "POST", p)
                        .json(run("{runId}", "t", sb))
                        .expect(409, "run-exists"));
        c.add(
                of("runs: list with unknown status", "GET", p + "?status=sleeping")
                        .expect(400, "invalid-request"));
        c.add(
                of("runs: list with NUL in threadId", "GET", p + "?threadId=t%00x")
                        .expect(400, "invalid-request"));
        c.add(
                of(
                                "runs: list with a 10k-character threadId",
                                "GET",
                                p + "?threadId=" + "t".repeat(10_000))
                        .expect(400, "invalid-request"));
        c.add(of("runs: DELETE the collection", "DELETE", p).expect(405, "method-not-allowed"));
    }

    private static void runReads(List<BadInputCase> c) {
        String r = "/api/v1/runs/{run}";
        c.add(of("run: unknown", "GET", "/api/v1/runs/no-such-run").expect(404, "not-found"));
        c.add(of("run: 300-character id", "GET", "/api/v1/runs/" + "r".repeat(300)).expect4xx());
        c.add(of("run: DELETE", "DELETE", r).expect(405, "method-not-allowed"));
        String answer = r + "/interrupts/no-such-interrupt";
        c.add(
                of("run interrupt: body a JSON array", "POST", answer)
                        .json("[]")
                        .expect(400, "invalid-request")
                        .field("body"));
        c.add(
                of("run interrupt: no status", "POST", answer)
                        .json("{}")
                        .expect(400, "invalid-request")
                        .field("status"));
        c.add(
                of("run interrupt: status pending", "POST", answer)
                        .json("{\"status\":\"pending\"}")
                        .expect(400, "invalid-request")
                        .field("status"));
        c.add(
                of("run interrupt: payload a string", "POST", answer)
                        .json("{\"status\":\"resolved\",\"payload\":\"yes\"}")
                        .expect(400, "invalid-request")
                        .field("payload"));
        c.add(
                of("run interrupt: unknown field", "POST", answer)
                        .json("{\"status\":\"cancelled\",\"reason\":\"no\"}")
                        .expect(400, "invalid-request")
                        .field("reason"));
        c.add(
                of("run interrupt: unknown interrupt", "POST", answer)
                        .json("{\"status\":\"cancelled\"}")
                        .expect(404, "not-found"));
        c.add(
                of("run interrupt: unknown run", "POST", "/api/v1/runs/no-such-run/interrupts/x")
                        .json("{\"status\":\"cancelled\"}")
                        .expect(404, "not-found"));

        c.add(
                of("run events: after not a number", "GET", r + "/events?after=abc")
                        .header("Accept", "text/event-stream")
                        .expect(400, "invalid-request"));
        c.add(
                of("run events: after 2^64", "GET", r + "/events?after=18446744073709551616")
                        .header("Accept", "text/event-stream")
                        .expect(400, "invalid-request"));
        c.add(
                of("run events: after negative", "GET", r + "/events?after=-5")
                        .header("Accept", "text/event-stream")
                        .expect(400, "invalid-request"));
        c.add(
                of("run events: Last-Event-ID not a number", "GET", r + "/events")
                        .header("Accept", "text/event-stream")
                        .header("Last-Event-ID", "'; DROP TABLE x")
                        .expect(400, "invalid-request"));
        c.add(
                of("run events: Last-Event-ID with a control character", "GET", r + "/events")
                        .header("Accept", "text/event-stream")
                        .header("Last-Event-ID", "1\u0001")
                        .expect4xx());
        c.add(
                of("run events: unknown run", "GET", "/api/v1/runs/no-such-run/events")
                        .header("Accept", "text/event-stream")
                        .expect(404, "not-found"));
        c.add(
                of("run events: another tenant's run", "GET", r + "/events")
                        .token(Api.TENANT_B)
                        .header("Accept", "text/event-stream")
                        .expect(404, "not-found"));
        c.add(
                of("run log: limit negative", "GET", r + "/log?limit=-1")
                        .expect(400, "invalid-request"));
        c.add(
                of("run log: limit not a number", "GET", r + "/log?limit=all")
                        .expect(400, "invalid-request"));
        c.add(
                of("run log: limit 2^64", "GET", r + "/log?limit=18446744073709551616")
                        .expect(400, "invalid-request"));
        c.add(
                of("run log: after negative", "GET", r + "/log?after=-1")
                        .expect(400, "invalid-request"));
        c.add(
                of("run log: after not a number", "GET", r + "/log?after=x")
                        .expect(400, "invalid-request"));
        c.add(
                of("run log: unknown run", "GET", "/api/v1/runs/no-such-run/log")
                        .expect(404, "not-found"));
        c.add(
                of("run cancel: unknown run", "POST", "/api/v1/runs/no-such-run/cancel")
                        .expect(404, "not-found"));
        c.add(
                of("run cancel: another tenant's run", "POST", r + "/cancel")
                        .token(Api.TENANT_B)
                        .expect(404, "not-found"));
        c.add(of("run cancel: GET", "GET", r + "/cancel").expect4xx());
        c.add(
                of("active-run: unknown thread", "GET", "/api/v1/threads/no-such-thread/active-run")
                        .expect(404, "not-found"));
        c.add(
                of(
                                "active-run: 300-character thread",
                                "GET",
                                "/api/v1/threads/" + "t".repeat(300) + "/active-run")
                        .expect4xx());
        c.add(
                of("active-run: NUL in the thread", "GET", "/api/v1/threads/t%00x/active-run")
                        .refusedBeforeTheApplication());
        c.add(
                of("active-run: CR/LF in the thread", "GET", "/api/v1/threads/t%0d%0ax/active-run")
                        .refusedBeforeTheApplication());
        c.add(
                of("active-run: POST", "POST", "/api/v1/threads/{thread}/active-run")
                        .json("{}")
                        .expect(405, "method-not-allowed"));
    }

    private static void admin(List<BadInputCase> c) {
        c.add(
                of("admin: reaper as a tenant", "GET", "/api/v1/admin/reaper")
                        .expect(403, "forbidden"));
        c.add(
                of("admin: sweep as a tenant", "POST", "/api/v1/admin/reaper/sweep")
                        .expect(403, "forbidden"));
        c.add(
                of("admin: prune as a tenant", "POST", "/api/v1/admin/journals/prune")
                        .token(Api.TENANT_B)
                        .expect(403, "forbidden"));
        c.add(
                of("admin: reaper with a matrix parameter", "GET", "/api/v1/admin;x=1/reaper")
                        .token(Api.TENANT_B)
                        .expect(403, "forbidden"));
        c.add(
                of(
                                "admin: sweep with a matrix parameter on v1",
                                "POST",
                                "/api/v1;x/admin/reaper/sweep")
                        .token(Api.TENANT_B)
                        .expect(403, "forbidden"));
        c.add(
                of("admin: reaper with a double slash", "GET", "/api/v1//admin/reaper")
                        .token(Api.TENANT_B)
                        .expect4xx());
        c.add(
                of("admin: reaper with a dot segment", "GET", "/api/v1/./admin/reaper")
                        .token(Api.TENANT_B)
                        .expect4xx());
        c.add(
                of(
                                "admin: reaper with a dot-dot segment",
                                "GET",
                                "/api/v1/sandboxes/../admin/reaper")
                        .token(Api.TENANT_B)
                        .expect4xx());
        c.add(
                of("admin: reaper percent-encoded", "GET", "/api/v1/%61dmin/reaper")
                        .token(Api.TENANT_B)
                        .expect4xx());
        c.add(
                of("admin: reaper upper case", "GET", "/api/v1/ADMIN/reaper")
                        .token(Api.TENANT_B)
                        .expect4xx());
        c.add(
                of("admin: reaper with a trailing slash", "GET", "/api/v1/admin/reaper/")
                        .token(Api.TENANT_B)
                        .expect4xx());
        c.add(
                of("admin: sweep with an encoded slash", "POST", "/api/v1/admin%2freaper/sweep")
                        .token(Api.TENANT_B)
                        .expect4xx());
        c.add(
                of("admin: reaper without a token", "GET", "/api/v1/admin/reaper")
                        .token(null)
                        .expect(401, "unauthorized"));
        c.add(
                of("admin: DELETE the reaper as admin", "DELETE", "/api/v1/admin/reaper")
                        .token(Api.ADMIN)
                        .expect(405, "method-not-allowed"));
        c.add(
                of("admin: GET the sweep as admin", "GET", "/api/v1/admin/reaper/sweep")
                        .token(Api.ADMIN)
                        .expect(405, "method-not-allowed"));
    }

    private static void contentTypesAndMethods(List<BadInputCase> c) {
        c.add(
                of("ensure: text/plain", "POST", "/api/v1/sandboxes")
                        .body("text/plain", "{}".getBytes())
                        .expect(415));
        c.add(
                of("ensure: no content type", "POST", "/api/v1/sandboxes")
                        .body(null, "{}".getBytes())
                        .expect4xx());
        c.add(
                of("ensure: application/xml", "POST", "/api/v1/sandboxes")
                        .body("application/xml", "<a/>".getBytes())
                        .expect(415));
        c.add(
                of("ensure: JSON declared UTF-16 but UTF-8", "POST", "/api/v1/sandboxes")
                        .body("application/json; charset=UTF-16", "{\"a\":1}".getBytes())
                        .expect4xx());
        c.add(
                of("ensure: form body", "POST", "/api/v1/sandboxes")
                        .body("application/x-www-form-urlencoded", "a=1".getBytes())
                        .expect(415));
        c.add(
                of("exec: text/plain", "POST", S + "/exec")
                        .body("text/plain", "ls".getBytes())
                        .expect(415));
        c.add(
                of("runs: text/plain", "POST", "/api/v1/runs")
                        .body("text/plain", "{}".getBytes())
                        .expect(415));
        c.add(
                of("ensure: Accept image/png", "POST", "/api/v1/sandboxes")
                        .header("Accept", "image/png")
                        .json("{}")
                        .expect(406));
        c.add(of("TRACE on the API", "TRACE", "/api/v1/providers").expect4xx());
        c.add(of("unknown method on the API", "BREW", "/api/v1/providers").expect4xx());
    }

    private static void oversized(List<BadInputCase> c) {
        byte[] big = new byte[16 * 1024 * 1024 + 1];
        Arrays.fill(big, (byte) ' ');
        c.add(
                of("ensure: body over the limit", "POST", "/api/v1/sandboxes")
                        .body("application/json", big)
                        .expect(413, "payload-too-large"));
        c.add(
                of("ensure: chunked body over the limit", "POST", "/api/v1/sandboxes")
                        .body("application/json", big)
                        .chunked()
                        .expect(413, "payload-too-large"));
        c.add(
                of("exec: chunked body over the limit", "POST", S + "/exec")
                        .body("application/json", big)
                        .chunked()
                        .expect(413, "payload-too-large"));
        c.add(
                of("files: write over the limit", "PUT", S + "/files?path=/tmp/big")
                        .body("application/octet-stream", big)
                        .expect(413, "payload-too-large"));
        c.add(
                of("files: chunked write over the limit", "PUT", S + "/files?path=/tmp/big")
                        .body("application/octet-stream", big)
                        .chunked()
                        .expect(413, "payload-too-large"));
        c.add(
                of("runs: chunked body over the limit", "POST", "/api/v1/runs")
                        .body("application/json", big)
                        .chunked()
                        .expect(413, "payload-too-large"));
        c.add(
                of("stdin: body over the limit", "POST", S + "/processes/1/stdin")
                        .body("text/plain", big)
                        .expect(413, "payload-too-large"));
        c.add(
                of("Content-Length over the limit, no body sent", "POST", "/api/v1/sandboxes")
                        .header("Content-Type", "application/json")
                        .header("Content-Length", "99999999999")
                        .expect(413, "payload-too-large"));
    }

    private static String run(String runId, String threadId, String sandbox) {
        return "{"
                + (runId == null ? "" : "\"runId\":\"" + runId + "\",")
                + "\"threadId\":\""
                + threadId
                + "\","
                + sandbox
                + ",\"harness\":\"command\",\"command\":\"true\"}";
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
