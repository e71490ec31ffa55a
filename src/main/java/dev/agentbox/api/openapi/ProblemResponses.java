package dev.agentbox.api.openapi;

import jakarta.ws.rs.core.MediaType;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.PathItem;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.parameters.Parameter;
import org.eclipse.microprofile.openapi.models.parameters.RequestBody;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;

/**
 * Completes the document Liberty builds from the resources. Path parameters that a resource takes
 * as a field ({@code @PathParam} on a field, as the per-sandbox resources do) are invisible to the
 * annotation scanner: every {@code {name}} of a path that no parameter of the operation declares is
 * added as a required string path parameter.
 *
 * <p>Adds the error answers that follow from where an operation sits rather than from what it does,
 * so each resource declares only its own (a {@code 409}, a {@code 422}, a quota). Every answer
 * added is a reference to a response of {@code META-INF/openapi.yaml}, whose body is the {@code
 * Problem} schema; one an operation already declares for a status is never replaced.
 *
 * <ul>
 *   <li>every operation: {@code 401} (the bearer check runs before any path is matched) and {@code
 *       500};
 *   <li>under {@code /api/v1/admin/}: {@code 403} for any tenant but the admin tenant;
 *   <li>a path with a parameter: {@code 404} (an unknown, or another tenant's, resource), except a
 *       {@code PUT} of the path's last parameter, which creates what it names;
 *   <li>an operation with a body or a query or header parameter: {@code 400} (a refused value names
 *       its field; path parameters that are checked say so themselves);
 *   <li>an operation with a body: {@code 413} (over {@code agentbox.http.max-body-bytes}), and
 *       {@code 415} when the body is JSON (the others take any content type).
 * </ul>
 *
 * Registered by {@code mp.openapi.filter}; it runs on the document Liberty merged from the static
 * file and the annotations.
 */
public class ProblemResponses implements OASFilter {

    private static final String ADMIN = "/api/v1/admin/";
    private static final Pattern TEMPLATE = Pattern.compile("\\{([^}/]+)}");

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        if (openAPI.getPaths() == null) {
            return;
        }
        Map<String, RequestBody> bodies =
                openAPI.getComponents() == null
                                || openAPI.getComponents().getRequestBodies() == null
                        ? Map.of()
                        : openAPI.getComponents().getRequestBodies();
        for (Map.Entry<String, PathItem> path : openAPI.getPaths().getPathItems().entrySet()) {
            path.getValue()
                    .getOperations()
                    .forEach(
                            (method, op) ->
                                    addTo(
                                            path.getKey(),
                                            op,
                                            method == PathItem.HttpMethod.PUT,
                                            bodies));
        }
    }

    private static void addTo(
            String path, Operation op, boolean put, Map<String, RequestBody> bodies) {
        if (op.getResponses() == null) {
            op.setResponses(OASFactory.createAPIResponses());
        }
        declarePathParameters(path, op);
        APIResponses responses = op.getResponses();
        RequestBody body = resolve(op.getRequestBody(), bodies);
        boolean parameters =
                op.getParameters() != null
                        && op.getParameters().stream()
                                .anyMatch(p -> p.getIn() != Parameter.In.PATH);
        if (body != null || parameters) {
            add(responses, "400", "InvalidRequest");
        }
        add(responses, "401", "Unauthorized");
        if (path.startsWith(ADMIN)) {
            add(responses, "403", "Forbidden");
        }
        if (path.contains("{") && !(put && path.endsWith("}"))) {
            add(responses, "404", "NotFound");
        }
        if (body != null) {
            add(responses, "413", "PayloadTooLarge");
            if (body.getContent() != null
                    && body.getContent().hasMediaType(MediaType.APPLICATION_JSON)) {
                add(responses, "415", "UnsupportedMediaType");
            }
        }
        add(responses, "500", "InternalError");
        // In status order, however the annotations and this filter listed them.
        responses.setAPIResponses(new TreeMap<>(responses.getAPIResponses()));
    }

    private static void declarePathParameters(String path, Operation op) {
        Matcher m = TEMPLATE.matcher(path);
        while (m.find()) {
            String name = m.group(1);
            boolean declared =
                    op.getParameters() != null
                            && op.getParameters().stream()
                                    .anyMatch(
                                            p ->
                                                    p.getIn() == Parameter.In.PATH
                                                            && name.equals(p.getName()));
            if (!declared) {
                op.addParameter(
                        OASFactory.createParameter()
                                .name(name)
                                .in(Parameter.In.PATH)
                                .required(true)
                                .description("key".equals(name) ? "The sandbox's key" : null)
                                .schema(OASFactory.createSchema().type(Schema.SchemaType.STRING)));
            }
        }
    }

    /** The body itself, or the static file's body it refers to ({@code null}: none). */
    private static RequestBody resolve(RequestBody body, Map<String, RequestBody> bodies) {
        if (body == null || body.getRef() == null) {
            return body;
        }
        String ref = body.getRef();
        return bodies.getOrDefault(ref.substring(ref.lastIndexOf('/') + 1), body);
    }

    private static void add(APIResponses responses, String status, String name) {
        if (!responses.hasAPIResponse(status)) {
            responses.addAPIResponse(status, OASFactory.createAPIResponse().ref(name));
        }
    }
}
