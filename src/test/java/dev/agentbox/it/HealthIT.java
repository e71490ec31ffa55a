package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.testing.PostgresPass;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

@PostgresPass
class HealthIT {

    private final Api api = Api.itServer();

    @Test
    void readyIsUpWithTheDatabaseCheckUp() {
        HttpResponse<String> response = api.send(api.request("/health/ready").GET());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonObject database = check(Api.object(response), "database");
        assertThat(database.getString("status")).isEqualTo("UP");
        String expected =
                "postgresql".equals(System.getProperty("agentbox.it.db.kind"))
                        ? "PostgreSQL"
                        : "Apache Derby";
        assertThat(database.getJsonObject("data").getString("product")).isEqualTo(expected);
        JsonObject service = check(Api.object(response), "agentbox");
        assertThat(service.getJsonObject("data").getString("installationId"))
                .matches("[0-9a-f]{32}");
    }

    @Test
    void theDatabaseCheckSaysHowOtherServersLearnThisOneDied() {
        // PostgreSQL: by its database session (taken in the background at start); embedded
        // Derby has no other server, only leases.
        String expected =
                "postgresql".equals(System.getProperty("agentbox.it.db.kind"))
                        ? "session"
                        : "lease";
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(15))
                .untilAsserted(
                        () -> {
                            HttpResponse<String> r = api.send(api.request("/health/ready").GET());
                            assertThat(
                                            check(Api.object(r), "database")
                                                    .getJsonObject("data")
                                                    .getString("liveness"))
                                    .isEqualTo(expected);
                        });
    }

    @Test
    void liveAndStartedAreUp() {
        assertThat(api.send(api.request("/health/live").GET()).statusCode()).isEqualTo(200);
        HttpResponse<String> started = api.send(api.request("/health/started").GET());
        assertThat(started.statusCode()).isEqualTo(200);
        assertThat(started.body()).contains("\"agentbox\"");
    }

    @Test
    void openApiDocumentDescribesTheApi() {
        HttpResponse<String> response = api.send(api.request("/openapi").GET());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("/api/v1/providers").contains("bearer");
        assertThat(api.send(api.request("/openapi/ui/").GET()).statusCode()).isEqualTo(200);
    }

    @Test
    void metricsEndpointAnswers() {
        HttpResponse<String> response = api.send(api.request("/metrics").GET());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("# TYPE");
    }

    static JsonObject check(JsonObject health, String name) {
        return health.getJsonArray("checks").stream()
                .map(JsonValue::asJsonObject)
                .filter(c -> c.getString("name").equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no health check " + name + " in " + health));
    }
}
