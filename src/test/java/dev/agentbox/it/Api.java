package dev.agentbox.it;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonStructure;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A small HTTP client for integration tests against the server started by the build. */
public final class Api {

    public static final String TENANT_A = "token-a";
    public static final String TENANT_B = "token-b";
    public static final String ADMIN = "token-ops";

    private static final HttpClient HTTP =
            HttpClient.newBuilder()
                    // As SseClient: HTTP/1.1, not Java's default offer of h2c.
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(5))
                    .build();

    private final String baseUrl;

    public Api(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    /** The server the build started for this IT run ({@code agentbox.it.base-url}). */
    public static Api itServer() {
        return new Api(System.getProperty("agentbox.it.base-url", "http://localhost:19080"));
    }

    public String baseUrl() {
        return baseUrl;
    }

    public HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(60));
    }

    public HttpRequest.Builder request(String path, String token) {
        return request(path).header("Authorization", "Bearer " + token);
    }

    /**
     * Sends a request; a whole AG-UI stream or run log it reads is recorded ({@link AgUiStreams}).
     */
    public HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            HttpRequest built = request.build();
            HttpResponse<String> response = HTTP.send(built, HttpResponse.BodyHandlers.ofString());
            AgUiStreams.response(built, response);
            return response;
        } catch (Exception e) {
            throw new IllegalStateException("request failed: " + e, e);
        }
    }

    public HttpResponse<String> get(String path, String token) {
        return send(request(path, token).GET());
    }

    public static JsonStructure json(HttpResponse<String> response) {
        return Json.createReader(new StringReader(response.body())).read();
    }

    public static JsonObject object(HttpResponse<String> response) {
        return (JsonObject) json(response);
    }

    public static JsonObject parse(String json) {
        return Json.createReader(new StringReader(json)).readObject();
    }
}
