package dev.agentbox.api;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.Collections;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.HttpResponse;

/**
 * Which header fields the port proxy lets cross, in each direction, and which it sets itself.
 *
 * <ul>
 *   <li>Hop-by-hop fields (RFC 9110 7.6.1), those a {@code Connection} field names, and those the
 *       proxy frames itself ({@code Host}, {@code Content-Length}) stay on their side.
 *   <li>{@code Authorization} (it is the caller's agentbox token), {@code Cookie}, {@code Expect}
 *       and the caller's own {@code Forwarded}/{@code X-Forwarded-*} never reach the sandbox: the
 *       proxy sets {@code X-Forwarded-*} itself.
 *   <li>{@code Set-Cookie} never reaches the caller: every sandbox's port shares agentbox's origin,
 *       so a cookie set by one would be sent to all. Nor does {@code Clear-Site-Data}, with which a
 *       sandbox's page could wipe the storage of agentbox's origin (the console keeps its token
 *       there).
 *   <li>Every answer carries {@link #SANDBOX_POLICY}.
 * </ul>
 *
 * <p>A value with a line break (which no parsed request holds) is never written.
 */
final class ProxyHeaders {

    /**
     * Added to every proxied answer. A sandbox's pages share agentbox's origin; sandboxed without
     * {@code allow-same-origin}, a page runs in an opaque origin instead, so its scripts cannot
     * read the console's storage nor call the API with what it holds. Browsers enforce every policy
     * an answer carries, so a policy the sandbox sends itself can only add restrictions to this
     * one.
     */
    static final String SANDBOX_POLICY =
            "sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads";

    private static final Set<String> HOP_BY_HOP =
            Set.of(
                    "connection",
                    "keep-alive",
                    "proxy-connection",
                    "proxy-authenticate",
                    "proxy-authorization",
                    "te",
                    "trailer",
                    "transfer-encoding",
                    "upgrade",
                    "host",
                    "content-length");

    private static final Set<String> DROPPED_REQUEST =
            Set.of(
                    "authorization",
                    "cookie",
                    "expect",
                    "forwarded",
                    "x-forwarded-for",
                    "x-forwarded-host",
                    "x-forwarded-proto",
                    "x-forwarded-prefix");

    private static final Set<String> DROPPED_RESPONSE =
            Set.of("set-cookie", "set-cookie2", "clear-site-data");

    private ProxyHeaders() {}

    /**
     * Whether the request asks to switch protocols ({@code Connection: upgrade} + {@code Upgrade}).
     */
    static boolean isUpgrade(HttpServletRequest req) {
        return req.getHeader("Upgrade") != null && connectionTokens(req).contains("upgrade");
    }

    /**
     * Whether a field stays on this side of the proxy: hop-by-hop, framed by the proxy, or named as
     * hop-by-hop in {@code connectionTokens} (the {@code Connection} field's list, lower case).
     */
    static boolean hopByHop(String name, Set<String> connectionTokens) {
        String n = name.toLowerCase(Locale.ROOT);
        return HOP_BY_HOP.contains(n) || connectionTokens.contains(n);
    }

    /** The lower-case tokens of a {@code Connection} field value ({@code null}: none). */
    static Set<String> tokens(String connection) {
        if (connection == null) {
            return Set.of();
        }
        Set<String> out = new HashSet<>();
        for (String t : connection.split(",")) {
            if (!t.isBlank()) {
                out.add(t.trim().toLowerCase(Locale.ROOT));
            }
        }
        return out;
    }

    /**
     * Writes onto {@code out} the caller's fields that cross, then the proxy's own: {@code Host:
     * localhost:{port}} and {@code X-Forwarded-For}, {@code -Proto}, {@code -Host}, {@code
     * -Prefix}. Framing ({@code Content-Length}, {@code Transfer-Encoding}) and {@code Connection}
     * are the caller's of this method to set.
     */
    static void toSandbox(HttpServletRequest req, PortProxy.Target t, HttpRequest out) {
        Set<String> connection = connectionTokens(req);
        for (String name : Collections.list(req.getHeaderNames())) {
            String n = name.toLowerCase(Locale.ROOT);
            if (hopByHop(n, connection) || DROPPED_REQUEST.contains(n)) {
                continue;
            }
            for (String value : Collections.list(req.getHeaders(name))) {
                add(out, name, value);
            }
        }
        out.setHeader("Host", "localhost:" + t.port());
        add(out, "X-Forwarded-For", req.getRemoteAddr());
        add(out, "X-Forwarded-Proto", req.getScheme());
        add(out, "X-Forwarded-Host", req.getHeader("Host"));
        add(out, "X-Forwarded-Prefix", t.prefix());
    }

    /**
     * Sets the sandbox's status and the fields that cross on {@code out}, and the sandbox policy.
     * On a {@code 101} the {@code Upgrade} and {@code Connection} fields cross too: they are the
     * answer to the caller's own upgrade.
     */
    static void toClient(HttpResponse in, HttpServletResponse out) {
        out.setStatus(in.getCode());
        boolean switching = in.getCode() == 101;
        if (!switching) {
            out.addHeader("Content-Security-Policy", SANDBOX_POLICY);
        }
        Set<String> connection = new HashSet<>();
        for (Header h : in.getHeaders("Connection")) {
            connection.addAll(tokens(h.getValue()));
        }
        for (Header h : in.getHeaders()) {
            String n = h.getName().toLowerCase(Locale.ROOT);
            if (switching && (n.equals("upgrade") || n.equals("connection"))) {
                out.setHeader(h.getName(), h.getValue());
            } else if (!hopByHop(n, connection) && !DROPPED_RESPONSE.contains(n)) {
                out.addHeader(h.getName(), h.getValue());
            }
        }
    }

    private static Set<String> connectionTokens(HttpServletRequest req) {
        return tokens(String.join(",", Collections.list(req.getHeaders("Connection"))));
    }

    private static void add(HttpRequest out, String name, String value) {
        if (value == null || value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0) {
            return;
        }
        out.addHeader(name, value);
    }
}
