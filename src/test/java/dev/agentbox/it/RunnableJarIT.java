package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import jakarta.json.JsonObject;
import java.io.File;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Starts the packaged runnable jar ({@code java -jar target/agentbox.jar}) without any
 * token configured: single-tenant dev mode on embedded Derby. The jar unpacks its server
 * into a fresh folder on every start, so the server's output directory (and with it the
 * Derby database) is placed with {@code WLP_OUTPUT_DIR}; started twice, the second start
 * must reuse the database the first one created.
 */
class RunnableJarIT {

    private static final int PORT = 19180;

    @TempDir
    Path work;

    private Process server;

    @AfterEach
    void stop() throws Exception {
        stopServer();
    }

    @Test
    void runnableJarStartsInDevModeAndReusesItsDerbyDatabaseOnRestart() throws Exception {
        Api api = new Api("http://localhost:" + PORT);

        start();
        HttpResponse<String> providers = api.send(api.request("/api/v1/providers").GET());
        assertThat(providers.statusCode()).as("no token needed in dev mode").isEqualTo(200);
        JsonObject first = Api.object(api.send(api.request("/health/ready").GET()));
        JsonObject service = HealthIT.check(first, "agentbox").getJsonObject("data");
        assertThat(service.getString("auth")).isEqualTo("disabled");
        String installation = service.getString("installationId");
        assertThat(Files.readString(work.resolve("server.log"))).contains("dev mode");
        stopServer();

        try (var dbs = Files.walk(work.resolve("out"))) {
            assertThat(dbs.filter(p -> p.getFileName().toString().equals("agentbox-db")).findAny())
                    .as("Derby database folder under the server's output dir").isPresent();
        }

        start();
        JsonObject second = Api.object(api.send(api.request("/health/ready").GET()));
        assertThat(HealthIT.check(second, "agentbox").getJsonObject("data").getString("installationId"))
                .as("the second start finds the database of the first")
                .isEqualTo(installation);
    }

    private void start() {
        String jar = System.getProperty("agentbox.it.runnable-jar", "target/agentbox.jar");
        ProcessBuilder pb = new ProcessBuilder(javaBin(), "-jar", jar)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(work.resolve("server.log").toFile()));
        pb.environment().remove("AGENTBOX_AUTH_TOKENS");
        pb.environment().remove("AGENTBOX_DB_URL");
        pb.environment().put("HTTP_PORT", String.valueOf(PORT));
        pb.environment().put("HTTPS_PORT", String.valueOf(PORT + 363));
        pb.environment().put("WLP_OUTPUT_DIR", work.resolve("out").toString());
        try {
            server = pb.start();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        Api api = new Api("http://localhost:" + PORT);
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                .until(() -> {
                    if (!server.isAlive()) {
                        throw new IllegalStateException("the server exited with " + server.exitValue()
                                + ":\n" + Files.readString(work.resolve("server.log")));
                    }
                    try {
                        return api.send(api.request("/health/ready").GET()).statusCode() == 200;
                    } catch (IllegalStateException notListeningYet) {
                        return false;
                    }
                });
    }

    private void stopServer() throws Exception {
        if (server != null && server.isAlive()) {
            server.destroy();
            if (!server.waitFor(60, TimeUnit.SECONDS)) {
                server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        server = null;
    }

    private static String javaBin() {
        return System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    }
}
