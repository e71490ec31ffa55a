package dev.agentbox.api;

import dev.agentbox.sandbox.SandboxProviders;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

@Path("v1/providers")
@RequestScoped
@Tag(name = "providers")
@Produces(MediaType.APPLICATION_JSON)
public class ProvidersResource {

    @Inject SandboxProviders providers;

    @GET
    @Operation(
            operationId = "listProviders",
            summary = "The enabled sandbox providers, with live availability and capabilities")
    @APIResponse(responseCode = "200", ref = "Providers")
    public List<ProviderView> list() {
        return providers.enabled().stream()
                .map(p -> new ProviderView(p.name(), p.available(), p.capabilities()))
                .toList();
    }
}
