package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The TypeScript workspace against this server, as its users run it: each client package's server
 * suite ({@code npm run test:server}, node's test runner: every test must pass, none skipped or
 * left as todo, and at least as many as the suite has today, so a suite that stopped collecting its
 * tests fails here) and each example ({@code npm run start}: exit 0 and a last line {@code
 * {"ok":true,…}}).
 */
class TypeScriptClientsIT {

    private final TypeScriptWorkspace ws = new TypeScriptWorkspace(Api.itServer());

    private void suite(String dir, String workspace, int atLeast) {
        ws.requireBuilt(dir);
        TypeScriptWorkspace.Result r = ws.run(workspace, "test:server", Duration.ofMinutes(8));
        String out = TypeScriptWorkspace.tail(r.output());
        assertThat(r.exitCode()).as("%s's server suite failed:%n%s", workspace, out).isZero();
        assertThat(r.tap("fail")).as(out).isZero();
        assertThat(r.tap("skipped")).as("a skipped test is no pass:%n%s", out).isZero();
        assertThat(r.tap("todo")).as(out).isZero();
        assertThat(r.tap("cancelled")).as(out).isZero();
        assertThat(r.tap("pass")).as(out).isGreaterThanOrEqualTo(atLeast);
    }

    private void example(String workspace) {
        TypeScriptWorkspace.Result r = ws.run(workspace, "start", Duration.ofMinutes(5));
        String out = TypeScriptWorkspace.tail(r.output());
        assertThat(r.exitCode()).as("example %s failed:%n%s", workspace, out).isZero();
        assertThat(Api.parse(r.lastLine()).getBoolean("ok")).as(out).isTrue();
    }

    @Test
    void theTypedClientPassesItsSuiteAgainstARealServer() {
        suite("clients/agentbox-client", "agentbox-client", 29);
    }

    /**
     * The same client in Chromium: bundled for the browser (no Node built-ins), loaded into a page
     * of this server's origin, it ensures a sandbox, execs, streams a run and throws a typed
     * problem ({@code src/test/node/browser-client.mjs}).
     */
    @Test
    void theTypedClientRunsInABrowserAgainstARealServer() {
        ws.requireBuilt("clients/agentbox-client");
        NodeScripts node = new NodeScripts();
        node.requireInstalled(List.of("playwright-core", "esbuild"));
        Api api = Api.itServer();
        NodeScripts.Result r =
                node.run(
                        "browser-client.mjs",
                        Json.createObjectBuilder()
                                .add("baseUrl", api.baseUrl())
                                .add("token", Api.TENANT_A)
                                .build(),
                        Duration.ofMinutes(2));
        assertThat(r.exitCode()).as("%s", r.json()).isZero();
        assertThat(r.json().getBoolean("ok")).as("%s", r.json()).isTrue();
        assertThat(r.json().getString("exec")).isEqualTo("browser-42");
        assertThat(r.json().getString("text")).isEqualTo("b1 b2 b3 ");
        assertThat(r.json().getString("userAgent")).contains("Chrome/");
        assertThat(r.json().getJsonObject("problem").getString("code")).isEqualTo("not-found");
    }

    @Test
    void theTanStackSandboxProviderPassesTanStacksOwnCodePathsAgainstARealServer() {
        suite("clients/tanstack-sandbox", "@agentbox/tanstack-sandbox", 25);
    }

    @Test
    void theAcpFrontDoorPassesItsEditorSuiteAgainstARealServer() {
        suite("clients/agentbox-acp", "agentbox-acp", 6);
    }

    @Test
    void everyExampleRunsToItsSummary() {
        ws.requireBuilt("clients/agentbox-client");
        for (String example :
                new String[] {
                    "agentbox-example-node-client",
                    "agentbox-agui-chat-example",
                    "agentbox-example-tanstack-app",
                    "agentbox-example-editor"
                }) {
            example(example);
        }
    }
}
