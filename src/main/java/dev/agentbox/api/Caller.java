package dev.agentbox.api;

import jakarta.enterprise.context.RequestScoped;

/**
 * The authenticated caller of the current request: its tenant. Set once by {@link
 * BearerAuthFilter}.
 */
@RequestScoped
public class Caller {

    private String tenant;

    public String tenant() {
        if (tenant == null) {
            throw new IllegalStateException("no authenticated caller in this request");
        }
        return tenant;
    }

    void authenticate(String tenant) {
        this.tenant = tenant;
    }
}
