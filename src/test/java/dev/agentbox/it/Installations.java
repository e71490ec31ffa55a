package dev.agentbox.it;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

/** The installation a server belongs to, as its {@code /health} says. */
final class Installations {

    private Installations() {}

    /** The {@code installationId} of {@code api}'s server; fails when it does not say one. */
    static String of(Api api) {
        JsonObject health = Api.object(api.send(api.request("/health").GET()));
        return health.getJsonArray("checks").stream()
                .map(JsonValue::asJsonObject)
                .filter(
                        c ->
                                c.containsKey("data")
                                        && c.getJsonObject("data").containsKey("installationId"))
                .map(c -> c.getJsonObject("data").getString("installationId"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no installationId in /health: " + health));
    }
}
