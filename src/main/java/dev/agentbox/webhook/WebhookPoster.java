package dev.agentbox.webhook;

import dev.agentbox.agent.WebhookEvent;
import dev.agentbox.tool.http.HostPolicy;
import dev.agentbox.tool.http.RequestSigner;
import dev.agentbox.tool.http.ToolCallFailure;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * Posts one webhook payload, HTTP/1.1 over a socket to the address {@link HostPolicy} admitted (the
 * name is resolved once and that address is the one connected to, as for HTTP tools), signed as
 * HTTP tools are ({@link RequestSigner}).
 *
 * <p>Only the status line is read, at most {@value #MAX_STATUS_LINE} bytes of it: the receiver's
 * body is never read. The connect and the whole exchange have their own deadlines.
 */
public final class WebhookPoster {

    /** Names the delivery (the payload's {@code id}), for receivers that dedupe before parsing. */
    public static final String DELIVERY_HEADER = "X-Agentbox-Delivery";

    public static final String EVENT_HEADER = "X-Agentbox-Event";

    static final int MAX_STATUS_LINE = 512;

    private final HostPolicy hosts;
    private final WebhookSettings settings;
    private final Clock clock;

    public WebhookPoster(HostPolicy hosts, WebhookSettings settings, Clock clock) {
        this.hosts = hosts;
        this.settings = settings;
        this.clock = clock;
    }

    /**
     * Posts and returns the receiver's status code.
     *
     * @param secret the definition's signing secret; empty: unsigned
     * @throws ToolCallFailure the host is refused (before any connection), or the exchange failed;
     *     the message names the host, never the secret or the body
     */
    public int post(URI url, String secret, String deliveryId, WebhookEvent event, byte[] body)
            throws ToolCallFailure {
        InetAddress address = hosts.admit(url.getHost());
        boolean tls = "https".equals(url.getScheme());
        int port = url.getPort() > 0 ? url.getPort() : tls ? 443 : 80;
        try (Socket raw = new Socket()) {
            raw.connect(
                    new InetSocketAddress(address, port),
                    (int) settings.connectTimeout().toMillis());
            raw.setSoTimeout((int) Math.max(1, settings.timeout().toMillis()));
            Socket s = tls ? wrapTls(raw, url.getHost(), port) : raw;
            OutputStream out = s.getOutputStream();
            out.write(head(url, port, secret, deliveryId, event, body));
            out.write(body);
            out.flush();
            return status(s.getInputStream(), System.nanoTime() + settings.timeout().toNanos());
        } catch (IOException e) {
            throw new ToolCallFailure(
                    "post to "
                            + url.getHost()
                            + " failed: "
                            + e.getClass().getSimpleName()
                            + (e.getMessage() == null ? "" : " " + e.getMessage()));
        }
    }

    private byte[] head(
            URI url, int port, String secret, String deliveryId, WebhookEvent event, byte[] body) {
        String path =
                url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        if (url.getRawQuery() != null) {
            path += "?" + url.getRawQuery();
        }
        StringBuilder h = new StringBuilder();
        h.append("POST ").append(path).append(" HTTP/1.1\r\n");
        h.append("Host: ").append(url.getHost()).append(url.getPort() < 0 ? "" : ":" + port);
        h.append("\r\nContent-Type: application/json\r\n");
        h.append("User-Agent: agentbox-webhooks\r\n");
        h.append("Connection: close\r\n");
        h.append(DELIVERY_HEADER).append(": ").append(deliveryId).append("\r\n");
        h.append(EVENT_HEADER).append(": ").append(event.wireName()).append("\r\n");
        h.append("Content-Length: ").append(body.length).append("\r\n");
        if (!secret.isEmpty()) {
            long ts = clock.instant().getEpochSecond();
            byte[] key = secret.getBytes(StandardCharsets.UTF_8);
            h.append(RequestSigner.TIMESTAMP_HEADER).append(": ").append(ts).append("\r\n");
            h.append(RequestSigner.SIGNATURE_HEADER)
                    .append(": ")
                    .append(RequestSigner.sign(key, ts, body))
                    .append("\r\n");
        }
        h.append("\r\n");
        return h.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** The status code of the answer's status line; nothing after it is read. */
    private int status(InputStream in, long deadline) throws IOException, ToolCallFailure {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0 || line.length() >= MAX_STATUS_LINE || System.nanoTime() > deadline) {
                throw new ToolCallFailure("receiver did not answer a status line");
            }
            line.append((char) c);
        }
        String[] parts = line.toString().trim().split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
            throw new ToolCallFailure("receiver answered something that is not HTTP/1.1");
        }
        try {
            return Integer.parseInt(parts[1]);
        } catch (NumberFormatException e) {
            throw new ToolCallFailure("receiver answered a malformed status line");
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
}
