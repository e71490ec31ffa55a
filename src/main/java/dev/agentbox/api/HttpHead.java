package dev.agentbox.api;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The status line and header fields of an HTTP/1.1 response read from a sandbox's port, and the
 * hop-by-hop rules the port proxy applies in both directions.
 *
 * <p>Invariant: reading stops right after the empty line that ends the head, so whatever follows
 * (the body, or the first bytes of an upgraded protocol) is still in the stream. A head over {@link
 * #MAX_HEAD_BYTES} or not in HTTP/1.x form is an {@link IOException}: the proxy never relays bytes
 * it could not parse as a response.
 */
record HttpHead(int status, List<Map.Entry<String, String>> fields) {

    static final int MAX_HEAD_BYTES = 64 * 1024;

    /**
     * Fields a proxy must not relay (RFC 9110 7.6.1), and those it frames itself ({@code
     * Content-Length}, {@code Host}).
     */
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

    /** The first value of a field, by case-insensitive name. */
    Optional<String> first(String name) {
        return fields.stream()
                .filter(f -> f.getKey().equalsIgnoreCase(name))
                .map(Map.Entry::getValue)
                .findFirst();
    }

    /** The values of every {@code Connection} field, as tokens. */
    Set<String> connectionTokens() {
        Set<String> out = new HashSet<>();
        fields.stream()
                .filter(f -> f.getKey().equalsIgnoreCase("connection"))
                .forEach(f -> out.addAll(tokens(f.getValue())));
        return out;
    }

    /**
     * Reads one response head.
     *
     * @throws EOFException when the stream ends before a complete head
     * @throws IOException when the head is malformed or too large, or reading fails (a {@link
     *     java.net.SocketTimeoutException} when the socket's read timeout passes)
     */
    static HttpHead read(InputStream in) throws IOException {
        int[] budget = {0};
        String statusLine = line(in, budget);
        if (!statusLine.startsWith("HTTP/1.") || statusLine.length() < 12) {
            throw new IOException("not an HTTP/1.x status line");
        }
        int status;
        try {
            status = Integer.parseInt(statusLine.substring(9, 12));
        } catch (NumberFormatException e) {
            throw new IOException("malformed status code");
        }
        if (status < 100 || status > 999) {
            throw new IOException("malformed status code");
        }
        List<Map.Entry<String, String>> fields = new ArrayList<>();
        for (String l = line(in, budget); !l.isEmpty(); l = line(in, budget)) {
            int colon = l.indexOf(':');
            if (colon <= 0 || l.charAt(0) == ' ' || l.charAt(0) == '\t') {
                // obsolete line folding and nameless fields are refused, not guessed at
                throw new IOException("malformed header field");
            }
            String name = l.substring(0, colon);
            if (name.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
                throw new IOException("malformed header field name");
            }
            fields.add(Map.entry(name, l.substring(colon + 1).strip()));
        }
        return new HttpHead(status, List.copyOf(fields));
    }

    /** One line without its CRLF (a bare LF is accepted), counting against the head budget. */
    private static String line(InputStream in, int[] used) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(128);
        while (true) {
            int c = in.read();
            if (c < 0) {
                throw new EOFException("stream ended inside the response head");
            }
            if (++used[0] > MAX_HEAD_BYTES) {
                throw new IOException("response head over " + MAX_HEAD_BYTES + " bytes");
            }
            if (c == '\n') {
                break;
            }
            b.write(c);
        }
        byte[] bytes = b.toByteArray();
        int len =
                bytes.length > 0 && bytes[bytes.length - 1] == '\r'
                        ? bytes.length - 1
                        : bytes.length;
        for (int i = 0; i < len; i++) {
            if (bytes[i] == '\r' || bytes[i] == 0) {
                throw new IOException("control character in the response head");
            }
        }
        return new String(bytes, 0, len, StandardCharsets.ISO_8859_1);
    }
}
