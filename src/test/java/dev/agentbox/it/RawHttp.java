package dev.agentbox.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, for requests that {@link java.net.http.HttpClient} refuses to send:
 * request targets with raw control characters, {@code ..} or matrix parameters left as written,
 * header values with control characters, chunked bodies of any size. One request per connection
 * ({@code Connection: close}); the response is read to the end of the stream, and a response that
 * does not end within the timeout is a failure, never a hang.
 */
public final class RawHttp {

    /** A response: status, headers (names lower-cased, first value), the decoded body. */
    public record Response(int status, Map<String, String> headers, String body) {
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        public String contentType() {
            return headers.getOrDefault("content-type", "");
        }
    }

    private final String host;
    private final int port;

    public RawHttp(String baseUrl) {
        URI uri = URI.create(baseUrl);
        this.host = uri.getHost();
        this.port = uri.getPort();
    }

    /**
     * Sends {@code method target} exactly as given, without a body, with the bearer token unless
     * null.
     */
    public Response send(String method, String target, String token) {
        Map<String, String> head = new LinkedHashMap<>();
        head.put("Accept", "application/json");
        head.put("Content-Length", "0");
        if (token != null) {
            head.put("Authorization", "Bearer " + token);
        }
        return send(method, target, head, null, false, Duration.ofSeconds(60));
    }

    /**
     * Sends one request. {@code headLines} are complete header lines (name: value) written as
     * given; a non-null body is sent with Content-Length, or chunked when {@code chunked}. The body
     * is written on its own thread, so a server that answers (413) before reading it all is still
     * heard.
     */
    public Response send(
            String method,
            String target,
            Map<String, String> headLines,
            byte[] body,
            boolean chunked,
            Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 5000);
            socket.setSoTimeout((int) Math.max(1, timeout.toMillis()));
            StringBuilder head = new StringBuilder();
            head.append(method).append(' ').append(target).append(" HTTP/1.1\r\n");
            head.append("Host: ").append(host).append(':').append(port).append("\r\n");
            head.append("Connection: close\r\n");
            headLines.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
            if (body != null) {
                head.append(
                        chunked
                                ? "Transfer-Encoding: chunked\r\n"
                                : "Content-Length: " + body.length + "\r\n");
            }
            head.append("\r\n");
            OutputStream out = socket.getOutputStream();
            out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            Thread writer = null;
            if (body != null && body.length > 0) {
                writer = new Thread(() -> writeBody(out, body, chunked), "raw-http-body");
                writer.setDaemon(true);
                writer.start();
            } else if (body != null && chunked) {
                out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            }
            byte[] raw = readAll(socket.getInputStream(), deadline);
            return parse(raw);
        } catch (SocketTimeoutException e) {
            throw new AssertionError(
                    method + " " + abbreviate(target) + ": no complete response within " + timeout);
        } catch (IOException e) {
            throw new AssertionError(
                    method + " " + abbreviate(target) + ": connection failed: " + e);
        }
    }

    private static void writeBody(OutputStream out, byte[] body, boolean chunked) {
        try {
            int step = 64 * 1024;
            for (int off = 0; off < body.length; off += step) {
                int n = Math.min(step, body.length - off);
                if (chunked) {
                    out.write(
                            (Integer.toHexString(n) + "\r\n")
                                    .getBytes(StandardCharsets.ISO_8859_1));
                }
                out.write(body, off, n);
                if (chunked) {
                    out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
                }
            }
            if (chunked) {
                out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            }
            out.flush();
        } catch (IOException serverStoppedReading) {
            // The server answered and closed before the whole body: the answer is what counts.
        }
    }

    private static byte[] readAll(InputStream in, long deadline) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        byte[] b = new byte[16 * 1024];
        int n;
        Framing framing = null;
        try {
            while ((n = in.read(b)) >= 0) {
                buf.write(b, 0, n);
                if (framing == null) {
                    framing = Framing.of(buf.toByteArray());
                }
                // The server may keep the connection open (e.g. waiting for a body it refused):
                // stop at the end of the response it announced.
                if (framing != null && framing.complete(buf)) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new SocketTimeoutException("response still streaming at the deadline");
                }
            }
        } catch (java.net.SocketException reset) {
            // A reset after the response was read (the server closed with body bytes unread) is
            // fine.
            if (buf.size() == 0) {
                throw reset;
            }
        }
        return buf.toByteArray();
    }

    /** Where a response ends: after Content-Length body bytes, at the last chunk, or at EOF. */
    private record Framing(int headEnd, long length, boolean chunked) {
        static Framing of(byte[] raw) {
            String all = new String(raw, StandardCharsets.ISO_8859_1);
            int end = all.indexOf("\r\n\r\n");
            if (end < 0) {
                return null;
            }
            String head = all.substring(0, end).toLowerCase(Locale.ROOT);
            java.util.regex.Matcher length =
                    java.util.regex.Pattern.compile("\r\ncontent-length:\\s*(\\d+)").matcher(head);
            return new Framing(
                    end + 4,
                    length.find() ? Long.parseLong(length.group(1)) : -1,
                    head.contains("\r\ntransfer-encoding: chunked"));
        }

        boolean complete(ByteArrayOutputStream buf) {
            int body = buf.size() - headEnd;
            if (length >= 0) {
                return body >= length;
            }
            if (chunked && body >= 5) {
                byte[] raw = buf.toByteArray();
                String tail = new String(raw, raw.length - 5, 5, StandardCharsets.ISO_8859_1);
                return tail.equals("0\r\n\r\n") && (body == 5 || raw[raw.length - 6] == '\n');
            }
            return false;
        }
    }

    private static Response parse(byte[] raw) throws IOException {
        String all = new String(raw, StandardCharsets.ISO_8859_1);
        int end = all.indexOf("\r\n\r\n");
        if (end < 0) {
            throw new IOException("no complete response head: " + abbreviate(all));
        }
        String[] lines = all.substring(0, end).split("\r\n");
        String[] statusLine = lines[0].split(" ", 3);
        int status = Integer.parseInt(statusLine[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.putIfAbsent(
                        lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                        lines[i].substring(colon + 1).trim());
            }
        }
        byte[] body = java.util.Arrays.copyOfRange(raw, end + 4, raw.length);
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = dechunk(body);
        }
        return new Response(status, headers, new String(body, StandardCharsets.UTF_8));
    }

    private static byte[] dechunk(byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int i = 0;
        while (i < body.length) {
            int lineEnd = indexOfCrlf(body, i);
            if (lineEnd < 0) {
                break;
            }
            String sizeField =
                    new String(body, i, lineEnd - i, StandardCharsets.ISO_8859_1)
                            .split(";")[0].trim();
            int size = sizeField.isEmpty() ? 0 : Integer.parseInt(sizeField, 16);
            if (size == 0) {
                break;
            }
            int start = lineEnd + 2;
            out.write(body, start, Math.min(size, body.length - start));
            i = start + size + 2;
        }
        return out.toByteArray();
    }

    private static int indexOfCrlf(byte[] b, int from) {
        for (int i = from; i + 1 < b.length; i++) {
            if (b[i] == '\r' && b[i + 1] == '\n') {
                return i;
            }
        }
        return -1;
    }

    static String abbreviate(String s) {
        return s.length() > 120 ? s.substring(0, 120) + "…(" + s.length() + " chars)" : s;
    }
}
