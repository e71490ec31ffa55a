package dev.agentbox.api;

import dev.agentbox.problem.ProblemCode;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.ext.Provider;
import java.util.Map;
import java.util.Optional;

/**
 * Authenticates every API request by its bearer token and records the tenant in {@link Caller}.
 * Runs before matching so that an unauthenticated caller learns nothing about which paths exist.
 *
 * <p>It also refuses a non-admin tenant on every spelling of an admin path ({@link AdminPath}),
 * judged on the raw request path: {@code UriInfo.getPath()} keeps matrix parameters that routing
 * ignores, so {@code /v1/admin;x=1/reaper} once slipped past a check on it. The binding check is
 * {@link AdminAuthorizationFilter} on the matched resource.
 */
@Provider
@PreMatching
@Priority(Priorities.AUTHENTICATION)
public class BearerAuthFilter implements ContainerRequestFilter {

    private static final String PREFIX = "Bearer ";

    @Inject TenantTokens tokens;

    @Inject Caller caller;

    @Override
    public void filter(ContainerRequestContext request) {
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        Optional<String> found = tokens.authenticate(header);
        if (found.isEmpty()) {
            request.abortWith(
                    Problems.builder(
                                    ProblemCode.UNAUTHORIZED,
                                    TenantTokens.refusal(header),
                                    Map.of())
                            .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"agentbox\"")
                            .build());
            return;
        }
        String tenant = found.get();
        if (!tokens.isAdmin(tenant)
                && AdminPath.isAdmin(
                        request.getUriInfo().getRequestUri().getRawPath(),
                        request.getUriInfo().getBaseUri().getRawPath())) {
            request.abortWith(AdminAuthorizationFilter.forbidden());
            return;
        }
        caller.authenticate(tenant);
    }

    /**
     * The token after the scheme, with surrounding spaces and tabs removed (RFC 9110 OWS) but
     * nothing else: {@code trim()} would also drop control characters, so a token followed by a
     * control character would pass as the bare token.
     */
    static String credential(String header) {
        String token = header.substring(PREFIX.length());
        int start = 0;
        int end = token.length();
        while (start < end && (token.charAt(start) == ' ' || token.charAt(start) == '\t')) {
            start++;
        }
        while (end > start && (token.charAt(end - 1) == ' ' || token.charAt(end - 1) == '\t')) {
            end--;
        }
        return token.substring(start, end);
    }
}
