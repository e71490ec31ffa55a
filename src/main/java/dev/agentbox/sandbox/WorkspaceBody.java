package dev.agentbox.sandbox;

import dev.agentbox.platform.body.JsonMembers;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.validation.constraints.Size;

/**
 * An ensure body's {@code workspace}, read by {@link JsonMembers} in this order (the secrets first,
 * as they always were). The entries of {@code secrets}, {@code setup} and {@code env} are strings
 * or objects or arrays of strings, read one after the other by {@link WorkspaceReader}.
 */
public record WorkspaceBody(
        JsonObject secrets,
        JsonObject source,
        @Size(max = MAX_SETUP_STEPS, message = "has more than " + MAX_SETUP_STEPS + " steps")
                JsonArray setup,
        JsonObject env) {

    static final int MAX_SETUP_STEPS = 200;
}
