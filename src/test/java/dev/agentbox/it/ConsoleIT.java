package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The operator console ({@code /console}, docs/console.md) in a real browser: {@code
 * src/test/node/console-e2e.mjs} drives Debian's Chromium through playwright-core against this
 * server, with real sandboxes. It signs in, watches a run's text arrive through an events stream
 * that a proxy cuts once (the console must resume with {@code Last-Event-ID}: its raw events are
 * compared with the run's log), cancels a run, runs a command in a sandbox's exec box, reads a
 * file, destroys the sandbox, sweeps as the admin tenant, sees the 403 as another tenant, and shows
 * the runs list on a phone-sized screen (docs/behavior.md CO-01..CO-08; the script's step names
 * carry the ids). {@code console-units.mjs} runs the console's parsers in Node (CO-09). Screenshots
 * go to {@code target/console-screenshots}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleIT {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");

    /** What the script must have checked; a step it stopped doing fails here. */
    static final List<String> STEPS =
            List.of(
                    "CO-01 security headers and redirect",
                    "CO-02 a wrong token is refused with the API's problem",
                    "CO-02 a tenant signs in and sees no Operations",
                    "CO-03 the runs list shows the run, filtered by thread and status, refreshing itself",
                    "CO-03 Load more follows a Link rel=next header",
                    "CO-04 the run view streams the text as it arrives, through a cut connection",
                    "CO-04 the raw events are exactly the run's log: no gap, no duplicate",
                    "CO-05 Cancel, confirmed, ends the run aborted",
                    "CO-06 a sandbox's exec box shows exit code, stdout and stderr",
                    "CO-06 the file browser reads the workspace, refreshed after the exec",
                    "CO-06 Destroy, confirmed, removes the sandbox",
                    "CO-07 a non-admin tenant forcing Operations sees the API's 403",
                    "CO-08 at 390x844 the runs list shows",
                    "CO-07 the admin tenant sweeps from Operations and sees the result",
                    "CO-08 no script error and no CSP violation on any page");

    private final Api api = Api.itServer();
    private final NodeScripts node = new NodeScripts();
    private final String thread = "t-console-" + UUID.randomUUID();
    private final Path screenshots = Path.of("target", "console-screenshots").toAbsolutePath();

    @BeforeAll
    void requireTheBrowser() {
        node.requireInstalled(List.of("playwright-core"));
        assertThat(Files.isExecutable(CHROMIUM))
                .as("%s is missing: run scripts/browser (installs Debian's chromium)", CHROMIUM)
                .isTrue();
    }

    /**
     * The script cleans up after itself; this catches what a failed script left behind: its runs
     * (all in {@link #thread}) are cancelled and their sandboxes destroyed.
     */
    @AfterAll
    void cleanUp() {
        Runs runs = new Runs(api, Api.TENANT_A);
        for (JsonObject run : threadRuns()) {
            runs.cancel(run.getString("runId"));
            if (run.containsKey("sandboxKey")) {
                api.send(
                        api.request(
                                        "/api/v1/sandboxes/" + run.getString("sandboxKey"),
                                        Api.TENANT_A)
                                .DELETE());
            }
        }
    }

    private List<JsonObject> threadRuns() {
        return Api.json(api.get("/api/v1/runs?threadId=" + thread, Api.TENANT_A))
                .asJsonArray()
                .getValuesAs(JsonObject.class);
    }

    /**
     * The console's own stream parser, resuming reader, metrics parser and Link header reading, in
     * Node on the modules the browser loads: the edge cases a live server seldom produces (CO-09).
     */
    @Test
    void theConsolesStreamAndMetricsParsersHandleTheEdgeCases() {
        NodeScripts.Result r = node.run("console-units.mjs", Json.createObjectBuilder().build());

        assertThat(r.exitCode())
                .as("console-units.mjs exit code; it printed %s", r.json())
                .isZero();
        assertThat(r.json().getJsonArray("checks")).hasSize(7);
    }

    @Test
    void theConsoleShowsRunsSandboxesAndOperationsInChromium() throws Exception {
        JsonObject options =
                Json.createObjectBuilder()
                        .add("baseUrl", api.baseUrl())
                        .add("token", Api.TENANT_A)
                        .add("adminToken", Api.ADMIN)
                        .add("screenshots", screenshots.toString())
                        .add("chromium", CHROMIUM.toString())
                        .add("thread", thread)
                        .build();

        NodeScripts.Result r = node.run("console-e2e.mjs", options, Duration.ofMinutes(5));

        assertThat(r.exitCode()).as("console-e2e.mjs exit code; it printed %s", r.json()).isZero();
        assertThat(
                        r.json().getJsonArray("checks").getValuesAs(JsonObject.class).stream()
                                .map(c -> c.getString("name"))
                                .toList())
                .as("the steps console-e2e.mjs passed")
                .containsExactlyElementsOf(STEPS);
        assertThat(screenshots.resolve("run-view.png")).isNotEmptyFile();
        assertThat(screenshots.resolve("runs-phone.png")).isNotEmptyFile();
        assertThat(threadRuns())
                .as("the script's runs all ended")
                .allSatisfy(
                        run ->
                                assertThat(run.getString("status"))
                                        .isIn("completed", "failed", "aborted"));
        assertThat(threadRuns().stream().filter(run -> run.containsKey("sandboxKey")))
                .as("the script's sandboxes were destroyed")
                .allSatisfy(
                        run ->
                                assertThat(
                                                api.get(
                                                                "/api/v1/sandboxes/"
                                                                        + run.getString(
                                                                                "sandboxKey"),
                                                                Api.TENANT_A)
                                                        .statusCode())
                                        .isEqualTo(404));
    }
}
