package dev.agentbox.api;

import dev.agentbox.quota.Quota;
import dev.agentbox.quota.QuotaExceededException;
import dev.agentbox.quota.Slot;
import dev.agentbox.quota.TenantQuotas;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.ext.Provider;

/**
 * Holds one of the tenant's {@code concurrent-execs} slots for the duration of an {@link ExecQuota}
 * request, so that one tenant cannot occupy every Docker engine connection of this server with
 * execs and file operations.
 *
 * <p>The slot is taken after authentication and released when the response leaves the resource —
 * which the runtime does for every outcome the single exception mapper maps (success, problem,
 * unexpected failure), including a client that went away meanwhile. A resource whose work outlives
 * its response (a long exec answered as a stream) takes the slot over from {@link HeldExecSlot} and
 * releases it when the work ends.
 */
@Provider
@ExecQuota
@Priority(Priorities.USER)
public class ExecQuotaFilter implements ContainerRequestFilter, ContainerResponseFilter {

    @Inject Caller caller;

    @Inject TenantQuotas quotas;

    @Inject HeldExecSlot held;

    @Override
    public void filter(ContainerRequestContext request) {
        try {
            held.hold(quotas.acquire(caller.tenant(), Quota.CONCURRENT_EXECS));
        } catch (QuotaExceededException e) {
            request.abortWith(new ProblemMapper().toResponse(e));
        }
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        held.take().ifPresent(Slot::close);
    }
}
