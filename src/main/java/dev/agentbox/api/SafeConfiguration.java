package dev.agentbox.api;

import dev.agentbox.platform.LogText;
import dev.agentbox.sandbox.LocalSources;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The start-up rules that keep a server from running with an unsafe configuration. Pure logic over
 * the configured values; {@link SafeConfigurationCheck} applies it at start-up.
 *
 * <p>Each problem is one message that names the key to fix and never holds a token:
 *
 * <ul>
 *   <li>{@code agentbox.auth.tokens} set but blank, empty after parsing, garbled, with a tenant
 *       listed twice or one token shared by two tenants ({@link TenantTokens#parse}). Only a truly
 *       unset key means dev mode: a list that went wrong must not silently switch authentication
 *       off;
 *   <li>{@code agentbox.auth.admin-tenant} naming a tenant without a token (also in dev mode: an
 *       operator who names an admin expects authentication);
 *   <li>the {@code local} provider next to more than one tenant, unless {@code
 *       agentbox.providers.local.allow-multi-tenant=true}: its sandboxes, journal and setup
 *       directories share the host, so tenants are not isolated from each other;
 *   <li>{@code agentbox.sources.local.enabled=true} without {@code agentbox.sources.local.root}:
 *       the root is the only host directory a {@code local} source may copy from, and there is no
 *       safe default for it.
 * </ul>
 */
final class SafeConfiguration {

    static final String TOKENS = "agentbox.auth.tokens";
    static final String ADMIN_TENANT = "agentbox.auth.admin-tenant";
    static final String LOCAL_ENABLED = "agentbox.providers.local.enabled";
    static final String LOCAL_MULTI_TENANT = "agentbox.providers.local.allow-multi-tenant";
    static final String LOCAL_SOURCES_ENABLED = LocalSources.ENABLED;
    static final String LOCAL_SOURCES_ROOT = LocalSources.ROOT;

    /**
     * The values the rules look at.
     *
     * @param tokens {@value #TOKENS} as MicroProfile Config resolved it (empty when unset or blank)
     * @param tokensSetBlank the key is present but blank in a source Config treats as unset (e.g.
     *     {@code AGENTBOX_AUTH_TOKENS=} in the environment)
     * @param adminTenant {@value #ADMIN_TENANT}
     * @param localEnabled {@value #LOCAL_ENABLED}
     * @param localMultiTenant {@value #LOCAL_MULTI_TENANT}
     * @param localSourcesEnabled {@code agentbox.sources.local.enabled}
     * @param localSourcesRootSet {@code agentbox.sources.local.root} is set and not blank
     */
    record Settings(
            Optional<String> tokens,
            boolean tokensSetBlank,
            Optional<String> adminTenant,
            boolean localEnabled,
            boolean localMultiTenant,
            boolean localSourcesEnabled,
            boolean localSourcesRootSet) {

        /** Settings with local sources disabled. */
        Settings(
                Optional<String> tokens,
                boolean tokensSetBlank,
                Optional<String> adminTenant,
                boolean localEnabled,
                boolean localMultiTenant) {
            this(tokens, tokensSetBlank, adminTenant, localEnabled, localMultiTenant, false, false);
        }
    }

    private SafeConfiguration() {}

    /** Every rule the settings break, one message each; empty when the configuration is safe. */
    static List<String> problems(Settings s) {
        List<String> problems = new ArrayList<>();
        if (s.tokensSetBlank() && s.tokens().isEmpty()) {
            problems.add(
                    TOKENS
                            + " is set but blank; unset it for single-tenant dev mode, or list tenant=token pairs");
        }
        List<String> tenants = List.of();
        if (s.tokens().isPresent()) {
            try {
                tenants =
                        TenantTokens.parse(s.tokens().get()).stream()
                                .map(TenantTokens.Entry::tenant)
                                .toList();
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage());
            }
        }
        boolean authConfigured = s.tokens().isPresent() || s.tokensSetBlank();
        Optional<String> admin = s.adminTenant().map(String::trim).filter(a -> !a.isEmpty());
        if (admin.isPresent() && !tenants.contains(admin.get())) {
            problems.add(
                    ADMIN_TENANT
                            + " names tenant "
                            + LogText.quote(admin.get())
                            + ", which has no token in "
                            + TOKENS
                            + (authConfigured ? "" : " (unset: dev mode)"));
        }
        int tenantCount = authConfigured ? tenants.size() : 1;
        if (s.localEnabled() && tenantCount > 1 && !s.localMultiTenant()) {
            problems.add(
                    LOCAL_ENABLED
                            + "=true with "
                            + tenantCount
                            + " tenants in "
                            + TOKENS
                            + ": the local provider's sandboxes, journal and setup directories are shared on the host; set "
                            + LOCAL_MULTI_TENANT
                            + "=true to accept that, or disable the local provider");
        }
        if (s.localSourcesEnabled() && !s.localSourcesRootSet()) {
            problems.add(
                    LOCAL_SOURCES_ENABLED
                            + "=true but "
                            + LOCAL_SOURCES_ROOT
                            + " is not set: name the one host directory local sources may be copied from, or disable them");
        }
        return List.copyOf(problems);
    }
}
