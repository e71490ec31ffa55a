package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

class ProvidersIT {

    static final String[] CAPABILITIES = {
        "fs",
        "exec",
        "env",
        "ports",
        "backgroundProcesses",
        "writableStdin",
        "killableProcesses",
        "snapshots",
        "networkPolicy",
        "durableFilesystem",
        "fork"
    };

    private final Api api = Api.itServer();

    @Test
    void providersListEachEnabledProviderWithAvailabilityAndExactlyElevenCapabilities() {
        HttpResponse<String> response = api.get("/api/v1/providers", Api.TENANT_A);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type"))
                .get()
                .asString()
                .startsWith("application/json");
        JsonArray providers = (JsonArray) Api.json(response);
        for (JsonValue value : providers) {
            JsonObject provider = value.asJsonObject();
            assertThat(provider.getString("name")).isNotBlank();
            assertThat(provider.get("available").getValueType())
                    .isIn(JsonValue.ValueType.TRUE, JsonValue.ValueType.FALSE);
            JsonObject caps = provider.getJsonObject("capabilities");
            assertThat(caps.keySet()).containsExactlyInAnyOrder(CAPABILITIES);
            caps.values()
                    .forEach(
                            v ->
                                    assertThat(v.getValueType())
                                            .isIn(
                                                    JsonValue.ValueType.TRUE,
                                                    JsonValue.ValueType.FALSE));
        }
    }
}
