package dev.agentbox.testing;

import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;

/**
 * A MicroProfile {@link Config} over a map, for unit tests of the {@code fromConfig} readers: it
 * answers {@code getOptionalValue} for {@code String}, {@code Boolean}, {@code Integer}, {@code
 * Long} and {@code Double}, and fails on any other method, so a reader that starts using one is
 * noticed.
 */
public final class MapConfig {

    private MapConfig() {}

    public static Config of(Map<String, String> values) {
        return (Config)
                Proxy.newProxyInstance(
                        MapConfig.class.getClassLoader(),
                        new Class<?>[] {Config.class},
                        (proxy, m, args) -> {
                            if (!m.getName().equals("getOptionalValue")) {
                                throw new UnsupportedOperationException(m.getName());
                            }
                            String v = values.get((String) args[0]);
                            return v == null
                                    ? Optional.empty()
                                    : Optional.of(convert(v, (Class<?>) args[1]));
                        });
    }

    private static Object convert(String v, Class<?> type) {
        if (type == Boolean.class) {
            return Boolean.valueOf(v);
        }
        if (type == Integer.class) {
            return Integer.valueOf(v);
        }
        if (type == Long.class) {
            return Long.valueOf(v);
        }
        if (type == Double.class) {
            return Double.valueOf(v);
        }
        return v;
    }
}
