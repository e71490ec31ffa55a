package dev.agentbox.sandbox.egress;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The environment every command of an egress sandbox starts with, whatever runs the sandbox: both
 * spellings of the proxy variables naming its gateway's proxy, and loopback exempt. A client that
 * honours them works; one that ignores them (or a command that unsets them) has no route out.
 */
public final class ProxyEnv {

    private static final String LOOPBACK = "localhost,127.0.0.1,::1";

    private ProxyEnv() {}

    /** The variables for a gateway whose proxy is {@code proxyUrl} ({@code http://host:port}). */
    public static Map<String, String> of(String proxyUrl) {
        Map<String, String> env = new LinkedHashMap<>();
        for (String v : List.of("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")) {
            env.put(v, proxyUrl);
        }
        env.put("NO_PROXY", LOOPBACK);
        env.put("no_proxy", LOOPBACK);
        return env;
    }
}
