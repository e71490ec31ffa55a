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

@Path("v1/providers")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class ProvidersResource {

    @Inject SandboxProviders providers;

    @GET
    @Operation(summary = "The enabled sandbox providers, with live availability and capabilities")
    public List<ProviderView> list() {
        return providers.enabled().stream()
                .map(p -> new ProviderView(p.name(), p.available(), p.capabilities()))
                .toList();
    }
}
