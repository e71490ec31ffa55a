package dev.agentbox.api;

import jakarta.annotation.Priority;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.UriBuilder;
import jakarta.ws.rs.ext.Provider;
import java.net.URI;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code GET /agents/{agentId}?runId=R} (how {@code @tanstack/ai-client} joins a run) is the SSE of
 * run R, while {@code GET /agents/{agentId}} without it is JSON. JAX-RS matches methods by path and
 * media type, never by query parameters, and a client that joins sends no {@code Accept}: so,
 * before matching, such a request is rewritten to its own path, {@code
 * /agents/{agentId}/runs/{R}/events} (query kept: {@code offset}), which is also callable directly.
 */
@Provider
@PreMatching
@Priority(Priorities.AUTHENTICATION + 100)
public class AgentRunEventsRewrite implements ContainerRequestFilter {

    /** {@code v1/agents/{agentId}} relative to the application's base, raw (still encoded). */
    private static final Pattern AGENT =
            Pattern.compile("v1/agents/([A-Za-z0-9_-][A-Za-z0-9._-]*)/?");

    @Override
    public void filter(ContainerRequestContext request) {
        if (!HttpMethod.GET.equals(request.getMethod())) {
            return;
        }
        String runId = request.getUriInfo().getQueryParameters().getFirst("runId");
        if (runId == null) {
            return;
        }
        URI base = request.getUriInfo().getBaseUri();
        String raw = request.getUriInfo().getRequestUri().getRawPath();
        String basePath = base.getRawPath();
        if (!raw.startsWith(basePath)) {
            return;
        }
        Matcher m = AGENT.matcher(raw.substring(basePath.length()));
        if (!m.matches()) {
            return;
        }
        URI rewritten =
                UriBuilder.fromUri(request.getUriInfo().getRequestUri())
                        .replacePath(basePath + "v1/agents/" + m.group(1) + "/runs/")
                        .path("{runId}")
                        .path("events")
                        .replaceQueryParam("runId")
                        .build(runId);
        request.setRequestUri(base, rewritten);
    }
}
