package dev.agentbox.api;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HexFormat;
import java.util.Locale;

/**
 * Recognises every spelling of an admin path before routing, for the pre-matching check in {@link
 * BearerAuthFilter}. The binding guarantee is {@link AdminAuthorizationFilter} on the matched
 * resource; this check makes odd spellings answer {@code 403} instead of {@code 404} (or a route a
 * later router version might find), so a non-admin never learns more from a spelling than from the
 * canonical path.
 *
 * <p>{@link #normalize} errs towards recognising too much: a path it calls admin that no router
 * would ever match only costs a non-admin a {@code 403} where it would have had a {@code 404}. It
 * therefore:
 *
 * <ul>
 *   <li>percent-decodes (repeatedly, up to {@link #MAX_DECODE_ROUNDS} times, so {@code %2561dmin}
 *       is {@code admin} too) — an encoded {@code /} splits the segment;
 *   <li>treats {@code \} as {@code /};
 *   <li>strips matrix parameters ({@code ;...}) from every segment;
 *   <li>drops empty segments ({@code //}) and {@code .}, and resolves {@code ..} (never above the
 *       root);
 *   <li>lower-cases, so {@code ADMIN} is {@code admin}.
 * </ul>
 */
final class AdminPath {

    static final int MAX_DECODE_ROUNDS = 3;

    private AdminPath() {}

    /**
     * Whether {@code rawPath} (the request's path as sent, still percent-encoded) is the admin area
     * under {@code rawBasePath} (the application's base path, e.g. {@code /api/}).
     */
    static boolean isAdmin(String rawPath, String rawBasePath) {
        String path = normalize(rawPath);
        String base = normalize(rawBasePath);
        String prefix = base.equals("/") ? "/" : base + "/";
        if (!path.startsWith(prefix)) {
            return false;
        }
        String relative = path.substring(prefix.length());
        return relative.equals("v1/admin") || relative.startsWith("v1/admin/");
    }

    /**
     * The canonical form described above: {@code /} followed by the remaining segments joined by
     * {@code /}.
     */
    static String normalize(String rawPath) {
        String decoded = rawPath;
        for (int i = 0; i < MAX_DECODE_ROUNDS; i++) {
            String next = percentDecode(decoded);
            if (next.equals(decoded)) {
                break;
            }
            decoded = next;
        }
        Deque<String> segments = new ArrayDeque<>();
        for (String raw : decoded.replace('\\', '/').split("/")) {
            int semicolon = raw.indexOf(';');
            String segment =
                    (semicolon >= 0 ? raw.substring(0, semicolon) : raw).toLowerCase(Locale.ROOT);
            if (segment.isEmpty() || segment.equals(".")) {
                continue;
            }
            if (segment.equals("..")) {
                segments.pollLast();
                continue;
            }
            segments.addLast(segment);
        }
        return "/" + String.join("/", segments);
    }

    /**
     * Decodes {@code %hh} escapes as UTF-8 bytes. Not {@code URLDecoder}: a {@code +} in a path is
     * a plus, and a malformed escape is kept literally instead of failing the check.
     */
    private static String percentDecode(String s) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(s.length());
        byte[] in = s.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < in.length; i++) {
            if (in[i] == '%'
                    && i + 2 < in.length
                    && HexFormat.isHexDigit(in[i + 1])
                    && HexFormat.isHexDigit(in[i + 2])) {
                bytes.write(
                        HexFormat.fromHexDigit(in[i + 1]) << 4 | HexFormat.fromHexDigit(in[i + 2]));
                i += 2;
            } else {
                bytes.write(in[i]);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
