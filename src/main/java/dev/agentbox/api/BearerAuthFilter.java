package dev.agentbox.api;

import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;
import java.util.Map;
import java.util.Optional;

/**
 * Authenticates every API request by its bearer token and records the tenant in
 * {@link Caller}. Runs before matching so that an unauthenticated caller learns nothing
 * about which paths exist.
 */
@Provider
@PreMatching
@Priority(Priorities.AUTHENTICATION)
public class BearerAuthFilter implements ContainerRequestFilter {

    private static final String PREFIX = "Bearer ";

    @Inject
    TenantTokens tokens;

    @Inject
    Caller caller;

    @Override
    public void filter(ContainerRequestContext request) {
        String tenant;
        if (tokens.devMode()) {
            tenant = TenantTokens.DEV_TENANT;
        } else {
            String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
            Optional<String> found = header != null && header.regionMatches(true, 0, PREFIX, 0, PREFIX.length())
                    ? tokens.tenantFor(header.substring(PREFIX.length()).trim())
                    : Optional.empty();
            if (found.isEmpty()) {
                request.abortWith(Problems.builder(401, "unauthorized",
                        header == null ? "A bearer token is required." : "The bearer token is not valid.", Map.of())
                        .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"agentbox\"").build());
                return;
            }
            tenant = found.get();
        }
        if (isAdminPath(request.getUriInfo().getPath()) && !tokens.isAdmin(tenant)) {
            request.abortWith(Problems.response(403, "forbidden", "Admin endpoints need the admin tenant's token.", Map.of()));
            return;
        }
        caller.authenticate(tenant);
    }

    static boolean isAdminPath(String path) {
        String p = path.startsWith("/") ? path.substring(1) : path;
        return p.equals("v1/admin") || p.startsWith("v1/admin/");
    }
}
