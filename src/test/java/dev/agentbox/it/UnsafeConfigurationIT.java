package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Attack: a deployment whose token list went wrong ({@code AGENTBOX_AUTH_TOKENS=","}) used to start
 * in dev mode, serving every API without authentication; the local provider could run next to
 * several tenants that then share the host's directories.
 *
 * <p>The packaged runnable jar's server (unpacked once, {@link JarInstall}) is started with each
 * unsafe configuration on a port of its own; the application must not serve {@code /api/v1} at all
 * (not even after the server is up) and the log must name the key to fix. The process tree is
 * killed in every path.
 */
class UnsafeConfigurationIT {

    private static final int PORT = 19187;

    @TempDir Path work;

    @Test
    void aTokenListOfOnlyACommaStopsTheApplicationInsteadOfFallingBackToDevMode() throws Exception {
        String log = startAndWaitForStartupOutcome(Map.of("AGENTBOX_AUTH_TOKENS", ","));
        assertThat(log)
                .contains("Unsafe configuration: agentbox.auth.tokens")
                .as("never the dev-mode fallback")
                .doesNotContain("running in single-tenant dev mode");
    }

    @Test
    void theLocalProviderNextToSeveralTenantsStopsTheApplicationUnlessAllowed() throws Exception {
        String log =
                startAndWaitForStartupOutcome(
                        Map.of(
                                "AGENTBOX_AUTH_TOKENS", "alpha=token-alpha,beta=token-beta",
                                "AGENTBOX_PROVIDERS_LOCAL_ENABLED", "true"));
        assertThat(log)
                .contains("Unsafe configuration: agentbox.providers.local.enabled")
                .contains("agentbox.providers.local.allow-multi-tenant")
                .doesNotContain("token-alpha");
    }

    /**
     * Starts the jar, waits until the application's start has ended (or the server has exited),
     * checks that the application was not started and that {@code /api/v1/providers} is not served
     * without a token, and returns the log.
     */
    private String startAndWaitForStartupOutcome(Map<String, String> env) throws Exception {
        Path log = work.resolve("server.log");
        ProcessBuilder pb =
                JarInstall.serverRun(work.resolve("out"))
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().remove("AGENTBOX_AUTH_TOKENS");
        pb.environment().remove("AGENTBOX_AUTH_ADMIN_TENANT");
        pb.environment().remove("AGENTBOX_PROVIDERS_LOCAL_ENABLED");
        pb.environment().remove("AGENTBOX_DB_URL");
        pb.environment().put("HTTP_PORT", String.valueOf(PORT));
        pb.environment().put("HTTPS_PORT", String.valueOf(PORT + 363));
        pb.environment().put("WLP_OUTPUT_DIR", work.resolve("out").toString());
        pb.environment().put("AGENTBOX_PROVIDERS_LOCAL_ROOT", work.resolve("local").toString());
        pb.environment().putAll(env);
        Process process = pb.start();
        try {
            // Wait for the application's own outcome, not the server's "ready" (CWWKF0011I), which
            // a slow application start does not hold up: started (CWWKZ0001I) or not started
            // (CWWKZ0012I, after the failed start). The launcher may also exit.
            await().atMost(Duration.ofMinutes(8))
                    .pollInterval(Duration.ofMillis(500))
                    .until(
                            () -> {
                                String text = Files.readString(log);
                                return !process.isAlive()
                                        || text.contains("CWWKZ0001I")
                                        || text.contains("CWWKZ0012I");
                            });
            Api api = new Api("http://localhost:" + PORT);
            if (process.isAlive()) {
                // The server itself listens (so the answer below is the server's, not a refused
                // connection).
                AtomicReference<HttpResponse<String>> providers = new AtomicReference<>();
                await().atMost(Duration.ofMinutes(2))
                        .ignoreExceptions()
                        .until(
                                () ->
                                        providers.compareAndSet(
                                                null,
                                                api.send(api.request("/api/v1/providers").GET())));
                assertThat(providers.get().statusCode())
                        .as("the API is not served: %s", providers.get().body())
                        .isNotEqualTo(200);
                assertThat(providers.get().body()).doesNotContain("capabilities");
            }
            String text = Files.readString(log);
            assertThat(text)
                    .as("the application did not start")
                    .contains("CWWKZ0012I")
                    .doesNotContain("CWWKZ0001I");
            return text;
        } finally {
            kill(process);
        }
    }

    /**
     * The {@code server} script forks the server JVM: kill the whole tree, the script first. A
     * launcher that outlives its server may start a {@code server stop} of its own, which writes
     * into the output folder while the test's temporary folder is being deleted (seen with the
     * jar's launcher: {@code out/.logs/stop.log} appearing after the kill, failing the cleanup).
     */
    private static void kill(Process process) throws InterruptedException {
        List<ProcessHandle> tree = process.descendants().toList();
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        for (ProcessHandle child : tree) {
            child.destroyForcibly();
            child.onExit().join();
        }
    }
}
