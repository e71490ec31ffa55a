package dev.agentbox.it;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

/** Test helper for the sandbox endpoints: ensures sandboxes and deletes them after the test. */
public final class Sandboxes implements AutoCloseable {

    private final Api api;
    private final String token;
    private final List<String> made = new ArrayList<>();

    public Sandboxes(Api api, String token) {
        this.api = api;
        this.token = token;
    }

    public HttpResponse<String> ensureRaw(String body) {
        HttpResponse<String> r =
                api.send(
                        api.request("/api/v1/sandboxes", token)
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body)));
        if (r.statusCode() == 200 || r.statusCode() == 201) {
            String key = Api.object(r).getString("key");
            if (!made.contains(key)) {
                made.add(key);
            }
        }
        return r;
    }

    public JsonObject ensure(String body) {
        HttpResponse<String> r = ensureRaw(body);
        if (r.statusCode() != 200 && r.statusCode() != 201) {
            throw new AssertionError("ensure failed: " + r.statusCode() + " " + r.body());
        }
        return Api.object(r);
    }

    public HttpResponse<String> execRaw(String key, String command) {
        return postCommand(key, "/exec", command);
    }

    /** {@code {"command": command}} posted to the sandbox's {@code endpoint}. */
    private HttpResponse<String> postCommand(String key, String endpoint, String command) {
        return api.send(
                api.request("/api/v1/sandboxes/" + key + endpoint, token)
                        .header("Content-Type", "application/json")
                        .POST(
                                HttpRequest.BodyPublishers.ofString(
                                        Json.createObjectBuilder()
                                                .add("command", command)
                                                .build()
                                                .toString())));
    }

    public JsonObject exec(String key, String command) {
        HttpResponse<String> r = execRaw(key, command);
        if (r.statusCode() != 200) {
            throw new AssertionError("exec failed: " + r.statusCode() + " " + r.body());
        }
        return Api.object(r);
    }

    /**
     * Starts {@code command} as a background process of the sandbox ({@code POST …/processes}) and
     * returns its answer ({@code pid}); anything but 201 fails the test.
     */
    public JsonObject start(String key, String command) {
        HttpResponse<String> r = postCommand(key, "/processes", command);
        if (r.statusCode() != 201) {
            throw new AssertionError("process start failed: " + r.statusCode() + " " + r.body());
        }
        return Api.object(r);
    }

    public String stdout(String key, String command) {
        return exec(key, command).getString("stdout");
    }

    public HttpResponse<String> delete(String key) {
        return api.send(api.request("/api/v1/sandboxes/" + key, token).DELETE());
    }

    public void forget(String key) {
        made.remove(key);
    }

    @Override
    public void close() {
        for (String key : made) {
            delete(key);
        }
        made.clear();
    }
}
