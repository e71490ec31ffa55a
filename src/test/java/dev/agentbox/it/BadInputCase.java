package dev.agentbox.it;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One row of {@link BadInputCorpusIT}'s table: a request the API must refuse with a problem+json
 * 4xx. The path may hold placeholders ({@code {key}} the class's sandbox, {@code {run}} its
 * finished run, {@code {thread}} that run's thread) filled in when sent. {@code status} 0 means
 * "any 4xx" (where the contract leaves the exact status open).
 */
public final class BadInputCase {

    final String name;
    final String method;
    final String path;
    final Map<String, String> headers = new LinkedHashMap<>();
    String token = Api.TENANT_A;
    byte[] body;
    boolean chunked;
    int status;
    String code;
    final Map<String, String> members = new LinkedHashMap<>();
    boolean refusedBeforeTheApplication;

    private BadInputCase(String name, String method, String path) {
        this.name = name;
        this.method = method;
        this.path = path;
    }

    static BadInputCase of(String name, String method, String path) {
        return new BadInputCase(name, method, path);
    }

    /** A JSON body (Content-Type application/json). */
    BadInputCase json(String json) {
        return body("application/json", json.getBytes(StandardCharsets.UTF_8));
    }

    BadInputCase body(String contentType, byte[] bytes) {
        if (contentType != null) {
            headers.put("Content-Type", contentType);
        }
        this.body = bytes;
        return this;
    }

    BadInputCase chunked() {
        this.chunked = true;
        return this;
    }

    BadInputCase header(String name, String value) {
        headers.put(name, value);
        return this;
    }

    BadInputCase token(String token) {
        this.token = token;
        return this;
    }

    /** The exact status and problem code the contract names. */
    BadInputCase expect(int status, String code) {
        this.status = status;
        this.code = code;
        return this;
    }

    /**
     * A string member the problem must carry with exactly this value, e.g. {@code field} or {@code
     * capability}.
     */
    BadInputCase member(String name, String value) {
        members.put(name, value);
        return this;
    }

    /** The {@code field} the problem must name. */
    BadInputCase field(String field) {
        return member("field", field);
    }

    BadInputCase expect(int status) {
        this.status = status;
        return this;
    }

    /**
     * A request target the web container refuses (400, CWWWC0005I) before it routes the request to
     * the application — an encoded NUL, CR or LF, or a raw control character in the path — so its
     * body is the container's, not a problem document. Servlet 6 canonicalises the path first; no
     * application code runs for such a request. Still asserted: 400, no internals, no secrets.
     */
    BadInputCase refusedBeforeTheApplication() {
        this.status = 400;
        this.refusedBeforeTheApplication = true;
        return this;
    }

    /** Any 4xx with a problem body: the contract fixes no exact status for this input. */
    BadInputCase expect4xx() {
        this.status = 0;
        return this;
    }

    @Override
    public String toString() {
        return name;
    }
}
