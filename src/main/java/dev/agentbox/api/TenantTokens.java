package dev.agentbox.api;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Bearer tokens and the tenants they stand for, from {@code agentbox.auth.tokens}
 * ({@code tenantA=tokenA,tenantB=tokenB}). No tokens means single-tenant dev mode:
 * every request is tenant {@code default}.
 *
 * <p>Lookup compares SHA-256 digests of every configured token with
 * {@link MessageDigest#isEqual}, visiting all of them, so the time taken does not tell
 * which prefix or which tenant matched.
 */
@ApplicationScoped
public class TenantTokens {

    public static final String DEV_TENANT = "default";
    private static final Logger LOG = Logger.getLogger(TenantTokens.class.getName());

    @Inject
    @ConfigProperty(name = "agentbox.auth.tokens")
    Optional<String> tokensConfig;

    @Inject
    @ConfigProperty(name = "agentbox.auth.admin-tenant")
    Optional<String> adminTenant;

    private List<Entry> entries = List.of();

    private record Entry(String tenant, byte[] digest) {
    }

    @PostConstruct
    void init() {
        entries = parse(tokensConfig.orElse(""));
        if (entries.isEmpty()) {
            LOG.warning("agentbox.auth.tokens is not set: running in single-tenant dev mode without authentication (tenant \"default\").");
        } else {
            LOG.info("Bearer authentication enabled for " + entries.size() + " token(s).");
        }
    }

    static List<Entry> parse(String config) {
        List<Entry> parsed = new ArrayList<>();
        for (String pair : config.split(",")) {
            String p = pair.trim();
            if (p.isEmpty()) {
                continue;
            }
            int eq = p.indexOf('=');
            if (eq <= 0 || eq == p.length() - 1) {
                throw new IllegalArgumentException("agentbox.auth.tokens: expected tenant=token, got an entry without '=' or with an empty side");
            }
            parsed.add(new Entry(p.substring(0, eq).trim(), sha256(p.substring(eq + 1).trim())));
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

    /** Whether {@code tenant} may call {@code /admin}; in dev mode everyone may. */
    public boolean isAdmin(String tenant) {
        return devMode() || adminTenant.map(tenant::equals).orElse(false);
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
