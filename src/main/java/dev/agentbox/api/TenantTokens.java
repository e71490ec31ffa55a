package dev.agentbox.api;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Bearer tokens and the tenants they stand for, from {@code agentbox.auth.tokens} ({@code
 * tenantA=tokenA,tenantB=tokenB}). Only an unset key means single-tenant dev mode: every request is
 * tenant {@code default}. A key that is set must parse ({@link #parse}); {@link
 * SafeConfigurationCheck} refuses to start otherwise.
 *
 * <p>Lookup compares SHA-256 digests of every configured token with {@link MessageDigest#isEqual},
 * visiting all of them, so the time taken does not tell which prefix or which tenant matched.
 */
@ApplicationScoped
public class TenantTokens {

    public static final String DEV_TENANT = "default";
    private static final Logger LOG = Logger.getLogger(TenantTokens.class.getName());
    private static final String KEY = "agentbox.auth.tokens";

    /** Tenant names end up in labels, directory names and log lines: keep them plain. */
    private static final Pattern TENANT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");

    @Inject
    @ConfigProperty(name = KEY)
    Optional<String> tokensConfig;

    @Inject
    @ConfigProperty(name = "agentbox.auth.admin-tenant")
    Optional<String> adminTenant;

    private List<Entry> entries = List.of();

    /** One configured tenant and the digest of its token (the token itself is not kept). */
    record Entry(String tenant, byte[] digest) {}

    @PostConstruct
    void init() {
        if (tokensConfig.isEmpty()) {
            LOG.warning(
                    KEY
                            + " is not set: running in single-tenant dev mode without authentication (tenant \"default\").");
            return;
        }
        entries = parse(tokensConfig.get());
        LOG.info("Bearer authentication enabled for " + entries.size() + " tenant(s).");
    }

    /**
     * The entries of a configured token list, in order.
     *
     * @throws IllegalArgumentException naming {@code agentbox.auth.tokens} (never a token) when the
     *     list has no entry, an entry is not {@code tenant=token} with both sides non-empty, a
     *     tenant name is not plain ({@code [A-Za-z0-9][A-Za-z0-9._-]*}, at most 63), a tenant is
     *     listed twice, or two tenants share a token
     */
    static List<Entry> parse(String config) {
        List<Entry> parsed = new ArrayList<>();
        Map<String, String> tenantByToken = new HashMap<>();
        String[] pairs = config.split(",", -1);
        for (int i = 0; i < pairs.length; i++) {
            String p = pairs[i].trim();
            if (p.isEmpty()) {
                continue;
            }
            int eq = p.indexOf('=');
            if (eq <= 0
                    || eq == p.length() - 1
                    || p.substring(0, eq).isBlank()
                    || p.substring(eq + 1).isBlank()) {
                throw new IllegalArgumentException(
                        KEY
                                + ": entry "
                                + (i + 1)
                                + " is not tenant=token (missing '=', empty tenant or empty token)");
            }
            String tenant = p.substring(0, eq).trim();
            String token = p.substring(eq + 1).trim();
            if (!TENANT.matcher(tenant).matches()) {
                throw new IllegalArgumentException(
                        KEY
                                + ": entry "
                                + (i + 1)
                                + " has a tenant name that is not [A-Za-z0-9][A-Za-z0-9._-]* (at most 63 characters)");
            }
            if (token.chars().anyMatch(c -> c < 0x21 || c == 0x7f)) {
                throw new IllegalArgumentException(
                        KEY
                                + ": the token of tenant \""
                                + tenant
                                + "\" holds whitespace or control characters, which no bearer header can carry");
            }
            if (parsed.stream().anyMatch(e -> e.tenant().equals(tenant))) {
                throw new IllegalArgumentException(
                        KEY + ": tenant \"" + tenant + "\" is listed twice");
            }
            String other = tenantByToken.putIfAbsent(token, tenant);
            if (other != null) {
                throw new IllegalArgumentException(
                        KEY
                                + ": tenants \""
                                + other
                                + "\" and \""
                                + tenant
                                + "\" have the same token; every tenant needs its own");
            }
            parsed.add(new Entry(tenant, sha256(token)));
        }
        if (parsed.isEmpty()) {
            throw new IllegalArgumentException(
                    KEY + " is set but holds no tenant=token entry; unset it for dev mode");
        }
        return List.copyOf(parsed);
    }

    public boolean devMode() {
        return entries.isEmpty();
    }

    /** The tenant the token belongs to; empty for an unknown token. */
    public Optional<String> tenantFor(String token) {
        byte[] presented = sha256(token);
        String match = null;
        for (Entry e : entries) {
            if (MessageDigest.isEqual(e.digest(), presented) && match == null) {
                match = e.tenant();
            }
        }
        return Optional.ofNullable(match);
    }

    /**
     * The tenant an {@code Authorization} header authenticates: {@link #DEV_TENANT} in dev mode,
     * whatever the header; otherwise the tenant of its bearer token, empty when the header is
     * missing, not {@code Bearer} or names no configured token. The one check every entry point
     * (the JAX-RS filter, the port proxy) applies.
     */
    public Optional<String> authenticate(String authorizationHeader) {
        if (devMode()) {
            return Optional.of(DEV_TENANT);
        }
        String prefix = "Bearer ";
        if (authorizationHeader == null
                || !authorizationHeader.regionMatches(true, 0, prefix, 0, prefix.length())) {
            return Optional.empty();
        }
        return tenantFor(BearerAuthFilter.credential(authorizationHeader));
    }

    /** The {@code 401} detail for a refused {@code Authorization} header. */
    static String refusal(String authorizationHeader) {
        return authorizationHeader == null
                ? "A bearer token is required."
                : "The bearer token is not valid.";
    }

    /** Whether {@code tenant} may call {@code /admin}; in dev mode everyone may. */
    public boolean isAdmin(String tenant) {
        return devMode() || adminTenant.map(String::trim).map(tenant::equals).orElse(false);
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
