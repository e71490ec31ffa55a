package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The served OpenAPI document and the API reference ({@code docs/api.md}) describe the same
 * endpoints: every row of the reference's endpoint tables is an operation of the document, every
 * operation under {@code /api/v1} is in the reference, and every operation has a summary.
 */
class OpenApiIT {

    private static final Pattern ROW =
            Pattern.compile("^\\| (GET|POST|PUT|DELETE|PATCH) \\| `(/[^`?]*)[^`]*` \\|");
    private static final Pattern PROSE =
            Pattern.compile("`(GET|POST|PUT|DELETE|PATCH) (/[^`?\\s]*)[^`]*`");

    private final Api api = Api.itServer();

    private JsonObject document() {
        HttpResponse<String> r =
                api.send(api.request("/openapi?format=JSON").header("Accept", "application/json"));
        assertThat(r.statusCode()).isEqualTo(200);
        return Api.parse(r.body());
    }

    /** {@code METHOD /api/v1/path} of every operation the reference names. */
    private static Set<String> documented() throws IOException {
        Set<String> ops = new TreeSet<>();
        for (String line : Files.readAllLines(Path.of("docs/api.md"))) {
            Matcher row = ROW.matcher(line);
            if (row.find()) {
                ops.add(row.group(1) + " /api/v1" + row.group(2));
            }
            Matcher prose = PROSE.matcher(line);
            while (prose.find()) {
                String path = prose.group(2);
                ops.add(
                        prose.group(1)
                                + " "
                                + (path.startsWith("/api/") ? path : "/api/v1" + path));
            }
        }
        return ops;
    }

    private static Set<String> served(JsonObject doc) {
        Set<String> ops = new TreeSet<>();
        for (var path : doc.getJsonObject("paths").entrySet()) {
            for (String method : path.getValue().asJsonObject().keySet()) {
                if (Set.of("get", "post", "put", "delete", "patch").contains(method)) {
                    ops.add(method.toUpperCase(Locale.ROOT) + " " + path.getKey());
                }
            }
        }
        return ops;
    }

    @Test
    void everyEndpointOfTheReferenceIsInTheOpenApiDocumentAndViceVersa() throws IOException {
        Set<String> documented = documented();
        Set<String> served = served(document());

        assertThat(documented).as("rows found in docs/api.md").hasSizeGreaterThan(30);
        assertThat(served).containsAll(documented);
        assertThat(documented).containsAll(served);
    }

    @Test
    void everyOperationHasASummary() {
        JsonObject doc = document();
        List<String> missing = new ArrayList<>();
        for (var path : doc.getJsonObject("paths").entrySet()) {
            for (var op : path.getValue().asJsonObject().entrySet()) {
                if (op.getValue().getValueType() != JsonValue.ValueType.OBJECT) {
                    continue;
                }
                String summary = op.getValue().asJsonObject().getString("summary", "");
                if (summary.isBlank()) {
                    missing.add(op.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey());
                }
            }
        }
        assertThat(missing).as("operations without a summary").isEmpty();
    }
}
