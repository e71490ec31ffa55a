package dev.agentbox.api;

import dev.agentbox.problem.ProblemCode;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;
import java.util.Map;

/**
 * Authorizes calls to {@link AdminOnly} resources: the admin tenant (or anyone in dev mode) passes,
 * every other tenant gets {@code 403 forbidden}.
 *
 * <p>This is the guarantee for the admin area. It runs after matching, on the resource the router
 * actually chose, so no spelling of the path (matrix parameters, {@code //}, percent-encoding,
 * case) can reach an admin method unchecked; the pre-matching check in {@link BearerAuthFilter}
 * only makes odd spellings fail the same way.
 */
@Provider
@AdminOnly
@Priority(Priorities.AUTHORIZATION)
public class AdminAuthorizationFilter implements ContainerRequestFilter {

    @Inject TenantTokens tokens;

    @Inject Caller caller;

    @Override
    public void filter(ContainerRequestContext request) {
        if (!tokens.isAdmin(caller.tenant())) {
            request.abortWith(forbidden());
        }
    }

    static Response forbidden() {
        return Problems.response(
                ProblemCode.FORBIDDEN, "Admin endpoints need the admin tenant's token.", Map.of());
    }
}
