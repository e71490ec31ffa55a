package dev.agentbox.api;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.Config;

/**
 * Stops the application from starting when {@link SafeConfiguration} finds a problem: each problem
 * is logged as SEVERE, naming its key, and the start-up observer throws, so the container fails the
 * deployment and {@code /api/v1} is never served with an unsafe configuration (above all, never in
 * dev mode because a token list went wrong).
 */
@ApplicationScoped
public class SafeConfigurationCheck {

    private static final Logger LOG = Logger.getLogger(SafeConfigurationCheck.class.getName());

    @Inject Config config;

    void onStart(@Observes @Initialized(ApplicationScoped.class) Object ignored) {
        List<String> problems =
                SafeConfiguration.problems(
                        settings(config, System.getenv(), System.getProperties()));
        if (problems.isEmpty()) {
            return;
        }
        problems.forEach(p -> LOG.severe("Unsafe configuration: " + p));
        throw new IllegalStateException(
                "agentbox refuses to start with an unsafe configuration: "
                        + String.join("; ", problems));
    }

    static SafeConfiguration.Settings settings(
            Config config, Map<String, String> env, Map<Object, Object> properties) {
        return new SafeConfiguration.Settings(
                config.getOptionalValue(SafeConfiguration.TOKENS, String.class),
                setButBlank(SafeConfiguration.TOKENS, env, properties),
                config.getOptionalValue(SafeConfiguration.ADMIN_TENANT, String.class),
                config.getOptionalValue(SafeConfiguration.LOCAL_ENABLED, Boolean.class)
                        .orElse(false),
                config.getOptionalValue(SafeConfiguration.LOCAL_MULTI_TENANT, Boolean.class)
                        .orElse(false),
                config.getOptionalValue(SafeConfiguration.LOCAL_SOURCES_ENABLED, Boolean.class)
                        .orElse(false),
                config.getOptionalValue(SafeConfiguration.LOCAL_SOURCES_ROOT, String.class)
                        .filter(r -> !r.isBlank())
                        .isPresent());
    }

    /**
     * Whether {@code key} is present but blank as a system property or in any of the environment
     * spellings MicroProfile Config reads: Config treats an empty value as unset, which for the
     * token list would mean dev mode.
     */
    static boolean setButBlank(
            String key, Map<String, String> env, Map<Object, Object> properties) {
        String sanitized = key.replaceAll("[^A-Za-z0-9_]", "_");
        for (String name : List.of(key, sanitized, sanitized.toUpperCase(Locale.ROOT))) {
            String v = env.get(name);
            if (v != null && v.isBlank()) {
                return true;
            }
        }
        return properties.get(key) instanceof String property && property.isBlank();
    }
}
