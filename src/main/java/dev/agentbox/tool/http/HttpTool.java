package dev.agentbox.tool.http;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.URI;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A tool an agent calls that agentbox runs by posting the call's arguments to {@code url}.
 *
 * <p>Invariants: {@code name} is 1–64 of {@code [A-Za-z0-9_-]} (what MCP clients accept in a tool
 * name); {@code url} is absolute {@code http} or {@code https} with a host; {@code parameters} is a
 * JSON Schema object. Whether the host may be reached is decided per call ({@link HostPolicy}), so
 * a definition stays valid when the operator's allowed hosts change.
 */
public record HttpTool(String name, String description, JsonObject parameters, URI url) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    public HttpTool {
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(parameters, "parameters");
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "tool name must be 1-64 letters, digits, '_' or '-': " + name);
        }
        if (url == null
                || !("http".equals(url.getScheme()) || "https".equals(url.getScheme()))
                || url.getHost() == null) {
            throw new IllegalArgumentException("tool " + name + ": url must be http(s)://host/...");
        }
    }

    /**
     * Reads {@code {"name","description","parameters","url"}}; a missing {@code parameters} is the
     * empty object schema.
     *
     * @throws IllegalArgumentException naming the field that is wrong
     */
    public static HttpTool fromJson(JsonObject o) {
        try {
            JsonObject params =
                    o.containsKey("parameters") && o.get("parameters") != JsonValue.NULL
                            ? o.getJsonObject("parameters")
                            : jakarta.json.Json.createObjectBuilder().add("type", "object").build();
            return new HttpTool(
                    o.getString("name", null),
                    o.getString("description", ""),
                    params,
                    URI.create(o.getString("url", "")));
        } catch (ClassCastException e) {
            throw new IllegalArgumentException("tool: parameters must be a JSON Schema object");
        }
    }

    public JsonObject toJson() {
        return jakarta.json.Json.createObjectBuilder()
                .add("name", name)
                .add("description", description)
                .add("parameters", parameters)
                .add("url", url.toString())
                .build();
    }
}
