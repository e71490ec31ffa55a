package dev.agentbox.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Plain HTTP/1.1 over a socket, for request targets that {@code java.net.http} refuses or
 * that must reach the server byte for byte ({@code \}, {@code //}, {@code /./}, matrix
 * parameters on any segment). One request per connection ({@code Connection: close}); only
 * the loopback server of the test is ever addressed.
 */
public final class RawHttp {

    private final String host;
    private final int port;

    public RawHttp(String baseUrl) {
        URI uri = URI.create(baseUrl);
        this.host = uri.getHost();
        this.port = uri.getPort();
    }

    /** A response: status, headers (names lower-cased) and the body (chunked encoding undone). */
    public record Response(int status, Map<String, String> headers, String body) {
        public String contentType() {
            return headers.getOrDefault("content-type", "");
        }
    }

    /** Sends {@code method target} exactly as given, with an empty body and the bearer token if not null. */
    public Response send(String method, String target, String token) {
        StringBuilder request = new StringBuilder()
                .append(method).append(' ').append(target).append(" HTTP/1.1\r\n")
                .append("Host: ").append(host).append(':').append(port).append("\r\n")
                .append("Accept: application/json\r\n")
                .append("Content-Length: 0\r\n")
                .append("Connection: close\r\n");
        if (token != null) {
            request.append("Authorization: Bearer ").append(token).append("\r\n");
        }
        request.append("\r\n");
        try (Socket socket = new Socket(host, port)) {
            socket.setSoTimeout(60_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            return parse(socket.getInputStream().readAllBytes());
        } catch (IOException e) {
            throw new IllegalStateException(method + " " + target + " failed: " + e, e);
        }
    }

    private static Response parse(byte[] raw) {
        String all = new String(raw, StandardCharsets.ISO_8859_1);
        int headEnd = all.indexOf("\r\n\r\n");
        if (headEnd < 0) {
            throw new IllegalStateException("no complete response head in: " + all);
        }
        String[] lines = all.substring(0, headEnd).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
        }
        byte[] body = Arrays.copyOfRange(raw, headEnd + 4, raw.length);
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = unchunk(body);
        }
        return new Response(status, headers, new String(body, StandardCharsets.UTF_8));
    }

    private static byte[] unchunk(byte[] chunked) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int i = 0;
        while (true) {
            int lineEnd = indexOfCrlf(chunked, i);
            String sizeLine = new String(chunked, i, lineEnd - i, StandardCharsets.ISO_8859_1);
            int size = Integer.parseInt(sizeLine.split(";")[0].trim(), 16);
            if (size == 0) {
                return out.toByteArray();
            }
            out.write(chunked, lineEnd + 2, size);
            i = lineEnd + 2 + size + 2;
        }
    }

    private static int indexOfCrlf(byte[] b, int from) {
        for (int i = from; i + 1 < b.length; i++) {
            if (b[i] == '\r' && b[i + 1] == '\n') {
                return i;
            }
        }
        throw new IllegalStateException("truncated chunked body");
    }
}
