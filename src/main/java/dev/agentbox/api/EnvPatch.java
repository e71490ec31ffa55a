package dev.agentbox.api;

import dev.agentbox.platform.body.NoNul;
import dev.agentbox.platform.body.TypeMismatch;
import jakarta.validation.constraints.Pattern;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Body of {@code PATCH /sandboxes/{key}/env}: variables ({@code env}) and secrets ({@code secrets})
 * to set, each a shell name mapped to a string without NUL, or to {@code null} to remove it. Absent
 * maps are empty; the maps keep their nulls, which are meaningful here.
 */
public record EnvPatch(
        @TypeMismatch(
                        value = "must be an object of strings or nulls",
                        elements = "must be a string or null")
                Map<
                                @Pattern(
                                        regexp = ExecRequest.ENV_NAME,
                                        message = ExecRequest.ENV_NAME_MESSAGE)
                                String,
                                @NoNul String>
                        env,
        @TypeMismatch(
                        value = "must be an object of strings or nulls",
                        elements = "must be a string or null")
                Map<
                                @Pattern(
                                        regexp = ExecRequest.ENV_NAME,
                                        message = ExecRequest.ENV_NAME_MESSAGE)
                                String,
                                @NoNul String>
                        secrets) {

    public EnvPatch {
        env = env == null ? Map.of() : env;
        secrets = secrets == null ? Map.of() : secrets;
    }

    /** The patch as the service takes it: a removal is an empty value. */
    static Map<String, Optional<String>> changes(Map<String, String> patch) {
        Map<String, Optional<String>> changes = new LinkedHashMap<>();
        patch.forEach((name, value) -> changes.put(name, Optional.ofNullable(value)));
        return changes;
    }
}
