package dev.agentbox.tool;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A tool the AG-UI client runs itself ({@code RunAgentInput.tools}): the agent's call ends the
 * AG-UI run with an interrupt, and the client's next input carries the result.
 *
 * <p>Invariants: {@code name} is 1–64 of {@code [A-Za-z0-9_-]} (an MCP tool name); {@code
 * parameters} is a JSON Schema object of at most {@value #MAX_SCHEMA_CHARS} characters as JSON;
 * {@code description} at most {@value #MAX_DESCRIPTION} characters.
 */
public record ClientTool(String name, String description, JsonObject parameters) {

    public static final int MAX_SCHEMA_CHARS = 32 * 1024;
    public static final int MAX_DESCRIPTION = 4096;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    public ClientTool {
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(parameters, "parameters");
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "tool name must be 1-64 letters, digits, '_' or '-': " + name);
        }
        if (description.length() > MAX_DESCRIPTION) {
            throw new IllegalArgumentException(
                    "tool " + name + ": description over " + MAX_DESCRIPTION + " characters");
        }
        if (parameters.toString().length() > MAX_SCHEMA_CHARS) {
            throw new IllegalArgumentException(
                    "tool " + name + ": parameters over " + MAX_SCHEMA_CHARS + " characters");
        }
    }

    /**
     * Reads {@code {"name","description?","parameters?"}}; a missing {@code parameters} is the
     * empty object schema.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static ClientTool fromJson(JsonObject o) {
        Object params = o.get("parameters");
        JsonObject schema;
        if (params == null || params == JsonObject.NULL) {
            schema = Json.createObjectBuilder().add("type", "object").build();
        } else if (params instanceof JsonObject p) {
            schema = p;
        } else {
            throw new IllegalArgumentException("parameters must be a JSON Schema object");
        }
        if (!(o.get("name") instanceof jakarta.json.JsonString n)) {
            throw new IllegalArgumentException("name is required: a string");
        }
        String description =
                o.get("description") instanceof jakarta.json.JsonString d ? d.getString() : "";
        return new ClientTool(n.getString(), description, schema);
    }

    /**
     * As stored with the run's bridge: {@code {"kind":"client","name","description","parameters"}}.
     */
    public JsonObject toJson() {
        return Json.createObjectBuilder()
                .add("kind", "client")
                .add("name", name)
                .add("description", description)
                .add("parameters", parameters)
                .build();
    }
}
