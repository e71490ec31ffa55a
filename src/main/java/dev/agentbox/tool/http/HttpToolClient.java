package dev.agentbox.tool.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * Posts a tool call's arguments to its url and reads the answer, HTTP/1.1 over a socket opened to
 * the address {@link HostPolicy} admitted (a JDK HTTP client would resolve the name again). TLS
 * still checks the certificate against the url's host name (SNI and endpoint identification), so
 * pinning the address costs no verification.
 *
 * <p>Bounded: the connect and the whole exchange each have a deadline, and an answer over {@link
 * HttpToolSettings#maxResponseBytes()} is refused as soon as that many bytes have come.
 */
public final class HttpToolClient {

    /** An answer: its status and body (UTF-8 text for the agent). */
    public record Answer(int status, String body) {}

    /** Names the call; the same across a takeover's second post of it. */
    public static final String CALL_KEY_HEADER = "X-Agentbox-Call-Key";

    private final HttpToolSettings settings;
    private final HostPolicy hosts;
    private final Clock clock;

    public HttpToolClient(HttpToolSettings settings, Clock clock) {
        this.settings = settings;
        this.hosts = new HostPolicy(settings.allowedHosts());
        this.clock = clock;
    }

    /**
     * Posts {@code body} (JSON) to {@code url}, signed with {@code secret} when there is one.
     *
     * @throws ToolCallFailure refused before connecting (host), or the exchange failed or was too
     *     long or too large; the message says which
     */
    public Answer post(URI url, byte[] secret, byte[] body) throws ToolCallFailure {
        return post(url, secret, body, "");
    }

    /**
     * As {@link #post(URI, byte[], byte[])}, naming the call in {@value #CALL_KEY_HEADER}: the same
     * call may be posted twice when a server takes a run over mid-call, and a tool that must act
     * once can tell by it.
     */
    public Answer post(URI url, byte[] secret, byte[] body, String callKey) throws ToolCallFailure {
        InetAddress address = hosts.admit(url.getHost());
        boolean tls = "https".equals(url.getScheme());
        int port = url.getPort() > 0 ? url.getPort() : tls ? 443 : 80;
        long deadline = System.nanoTime() + settings.callTimeout().toNanos();
        try (Socket raw = new Socket()) {
            raw.connect(
                    new InetSocketAddress(address, port),
                    (int) settings.connectTimeout().toMillis());
            Socket s = tls ? wrapTls(raw, url.getHost(), port) : raw;
            s.setSoTimeout((int) Math.max(1, settings.callTimeout().toMillis()));
            writeRequest(s.getOutputStream(), url, port, secret, body, callKey);
            return readAnswer(s.getInputStream(), deadline);
        } catch (SocketTimeoutException e) {
            throw new ToolCallFailure(
                    "tool url " + url + " did not answer within " + settings.callTimeout());
        } catch (IOException e) {
            throw new ToolCallFailure("tool url " + url + " failed: " + e.getMessage(), e);
        }
    }

    private static Socket wrapTls(Socket raw, String host, int port) throws IOException {
        SSLSocket s =
                (SSLSocket)
                        ((SSLSocketFactory) SSLSocketFactory.getDefault())
                                .createSocket(raw, host, port, true);
        SSLParameters p = s.getSSLParameters();
        p.setEndpointIdentificationAlgorithm("HTTPS");
        p.setServerNames(List.of(new SNIHostName(host)));
        s.setSSLParameters(p);
        s.startHandshake();
        return s;
    }

    private void writeRequest(
            OutputStream out, URI url, int port, byte[] secret, byte[] body, String callKey)
            throws IOException {
        String path =
                url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        if (url.getRawQuery() != null) {
            path += "?" + url.getRawQuery();
        }
        boolean defaultPort = url.getPort() < 0;
        StringBuilder h = new StringBuilder();
        h.append("POST ").append(path).append(" HTTP/1.1\r\n");
        h.append("Host: ")
                .append(url.getHost())
                .append(defaultPort ? "" : ":" + port)
                .append("\r\n");
        h.append("Content-Type: application/json\r\n");
        h.append("Accept: application/json, text/plain\r\n");
        h.append("User-Agent: agentbox-tools\r\n");
        h.append("Connection: close\r\n");
        if (!callKey.isEmpty()) {
            // The key holds the agent's request id: printable ASCII only reaches the header.
            h.append(CALL_KEY_HEADER)
                    .append(": ")
                    .append(callKey.replaceAll("[^\\x20-\\x7e]", "?"))
                    .append("\r\n");
        }
        h.append("Content-Length: ").append(body.length).append("\r\n");
        if (secret != null && secret.length > 0) {
            long ts = clock.instant().getEpochSecond();
            h.append(RequestSigner.TIMESTAMP_HEADER).append(": ").append(ts).append("\r\n");
            h.append(RequestSigner.SIGNATURE_HEADER)
                    .append(": ")
                    .append(RequestSigner.sign(secret, ts, body))
                    .append("\r\n");
        }
        h.append("\r\n");
        out.write(h.toString().getBytes(StandardCharsets.ISO_8859_1));
        out.write(body);
        out.flush();
    }

    private Answer readAnswer(InputStream in, long deadline) throws IOException, ToolCallFailure {
        Bounded b = new Bounded(in, settings.maxResponseBytes(), deadline);
        String status = b.line();
        String[] parts = status.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
            throw new ToolCallFailure("tool url answered something that is not HTTP/1.1");
        }
        int code;
        try {
            code = Integer.parseInt(parts[1]);
        } catch (NumberFormatException e) {
            throw new ToolCallFailure("tool url answered a malformed status line");
        }
        long length = -1;
        boolean chunked = false;
        for (String line = b.line(); !line.isEmpty(); line = b.line()) {
            int colon = line.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).trim();
            if (name.equals("content-length")) {
                try {
                    length = Long.parseLong(value);
                } catch (NumberFormatException e) {
                    throw new ToolCallFailure("tool url answered a malformed Content-Length");
                }
            } else if (name.equals("transfer-encoding")) {
                chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
            }
        }
        if (length > settings.maxResponseBytes()) {
            throw b.tooLarge();
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (chunked) {
            for (long size = chunkSize(b.line()); size > 0; size = chunkSize(b.line())) {
                b.copy(body, size);
                b.line();
            }
        } else if (length >= 0) {
            b.copy(body, length);
        } else {
            b.copy(body, Long.MAX_VALUE);
        }
        return new Answer(code, body.toString(StandardCharsets.UTF_8));
    }

    private static long chunkSize(String line) throws ToolCallFailure {
        int semi = line.indexOf(';');
        try {
            return Long.parseLong((semi >= 0 ? line.substring(0, semi) : line).trim(), 16);
        } catch (NumberFormatException e) {
            throw new ToolCallFailure("tool url answered a malformed chunk");
        }
    }

    /** Reads the answer counting every byte against the bound and the deadline. */
    private final class Bounded {
        private final InputStream in;
        private final long max;
        private final long deadline;
        private long taken;

        Bounded(InputStream in, long max, long deadline) {
            this.in = in;
            this.max = max;
            this.deadline = deadline;
        }

        ToolCallFailure tooLarge() {
            return new ToolCallFailure(
                    "tool answer is larger than " + settings.maxResponseBytes() + " bytes");
        }

        private int read() throws IOException, ToolCallFailure {
            check(1);
            return in.read();
        }

        private void check(long more) throws ToolCallFailure {
            if (System.nanoTime() > deadline) {
                throw new ToolCallFailure(
                        "tool url did not answer within " + settings.callTimeout());
            }
            // Headers count too: 8 KiB of slack so a bound of N bytes admits a body of N bytes.
            if (taken + more > max + 8192) {
                throw tooLarge();
            }
        }

        String line() throws IOException, ToolCallFailure {
            StringBuilder sb = new StringBuilder();
            for (int c = read(); c != '\n'; c = read()) {
                if (c < 0) {
                    throw new ToolCallFailure("tool url closed the connection mid-answer");
                }
                taken++;
                if (c != '\r') {
                    sb.append((char) c);
                }
            }
            taken++;
            return sb.toString();
        }

        void copy(ByteArrayOutputStream out, long n) throws IOException, ToolCallFailure {
            byte[] buf = new byte[8192];
            long left = n;
            while (left > 0) {
                check(0);
                int r = in.read(buf, 0, (int) Math.min(buf.length, left));
                if (r < 0) {
                    if (n == Long.MAX_VALUE) {
                        return;
                    }
                    throw new ToolCallFailure("tool url closed the connection mid-answer");
                }
                if (out.size() + r > settings.maxResponseBytes()) {
                    throw tooLarge();
                }
                out.write(buf, 0, r);
                taken += r;
                left -= r;
            }
        }
    }
}
