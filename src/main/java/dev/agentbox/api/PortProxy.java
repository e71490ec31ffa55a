package dev.agentbox.api;

import dev.agentbox.quota.Slot;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.hc.client5.http.auth.AuthSchemeFactory;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.ManagedHttpClientConnectionFactory;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.config.Http1Config;
import org.apache.hc.core5.http.config.RegistryBuilder;
import org.apache.hc.core5.http.impl.io.MonitoringResponseOutOfOrderStrategy;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * Forwards HTTP requests to ports inside sandboxes through one pooled httpclient5 client, and
 * streams the answers back; a request to switch protocols goes to {@link PortUpgrade} instead.
 *
 * <p>The client speaks the wire; this class sets the policy (docs/api.md, "Port proxy"):
 *
 * <ul>
 *   <li>Method, the raw path after {@code /proxy}, query and body cross unchanged; fields cross as
 *       {@link ProxyHeaders} says, the body as {@link ProxiedBody} says.
 *   <li>Nothing is added or interpreted: no redirect followed, no retry, no cookie store, no
 *       authentication, no content decoding, no {@code User-Agent}, no offer to upgrade to TLS.
 *   <li>Connections to a port are kept and reused; one whose response was not read to its end is
 *       discarded, never returned to the pool.
 * </ul>
 *
 * <p>Invariant: until the response head arrives nothing has been written to the caller, so every
 * failure up to then is a problem document ({@link PortFailures}); after it, a failure can only cut
 * the stream.
 */
final class PortProxy implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(PortProxy.class.getName());

    /**
     * Not a bound on the proxy: the container's request threads bound concurrent exchanges. The
     * pool's defaults (5 a port) would queue a sixth event stream behind five open ones.
     */
    private static final int MAX_CONNECTIONS = 10_000;

    /** A pooled connection idle longer is closed; one idle over a second is checked before use. */
    private static final TimeValue MAX_IDLE = TimeValue.ofSeconds(30);

    /**
     * Bounds on a response head: a line (the status line or one field) and the number of fields.
     */
    static final Http1Config HEAD_LIMITS =
            Http1Config.custom().setMaxLineLength(64 * 1024).setMaxHeaderCount(256).build();

    /**
     * @param connectTimeoutMs bound on opening the TCP connection
     * @param readTimeoutMs bound on any wait for the sandbox's next bytes (the response head, the
     *     body, an upgraded connection's traffic)
     * @param maxBodyBytes bound on the request body
     */
    record Settings(int connectTimeoutMs, int readTimeoutMs, long maxBodyBytes) {}

    /**
     * One request's destination.
     *
     * @param pathAndQuery the raw path after {@code /proxy} (at least {@code /}) and {@code ?query}
     * @param prefix the raw path up to and without the trailing {@code /} of {@code /proxy/}, sent
     *     as {@code X-Forwarded-Prefix} so an application can build its own links
     */
    record Target(
            InetSocketAddress address, int port, String key, String pathAndQuery, String prefix) {}

    private final Settings settings;
    private final CloseableHttpClient client;

    PortProxy(Settings settings) {
        this.settings = settings;
        this.client =
                HttpClients.custom()
                        .setConnectionManager(
                                PoolingHttpClientConnectionManagerBuilder.create()
                                        .setConnectionFactory(
                                                ManagedHttpClientConnectionFactory.builder()
                                                        .http1Config(HEAD_LIMITS)
                                                        // an application may answer (a 413 of
                                                        // its own) before reading the whole
                                                        // body: its answer is relayed
                                                        .responseOutOfOrderStrategy(
                                                                MonitoringResponseOutOfOrderStrategy
                                                                        .INSTANCE)
                                                        .build())
                                        .setMaxConnTotal(MAX_CONNECTIONS)
                                        .setMaxConnPerRoute(MAX_CONNECTIONS)
                                        .setDefaultConnectionConfig(
                                                ConnectionConfig.custom()
                                                        .setConnectTimeout(
                                                                Timeout.ofMilliseconds(
                                                                        settings
                                                                                .connectTimeoutMs()))
                                                        .setSocketTimeout(
                                                                Timeout.ofMilliseconds(
                                                                        settings.readTimeoutMs()))
                                                        .setValidateAfterInactivity(
                                                                TimeValue.ofSeconds(1))
                                                        .build())
                                        .build())
                        .setDefaultRequestConfig(
                                RequestConfig.custom()
                                        .setRedirectsEnabled(false)
                                        .setProtocolUpgradeEnabled(false)
                                        .setResponseTimeout(
                                                Timeout.ofMilliseconds(settings.readTimeoutMs()))
                                        .setConnectionRequestTimeout(
                                                Timeout.ofMilliseconds(settings.connectTimeoutMs()))
                                        .build())
                        .disableRedirectHandling()
                        .disableAutomaticRetries()
                        .disableCookieManagement()
                        .disableAuthCaching()
                        .setDefaultAuthSchemeRegistry(
                                RegistryBuilder.<AuthSchemeFactory>create().build())
                        .disableContentCompression()
                        .disableDefaultUserAgent()
                        .evictIdleConnections(MAX_IDLE)
                        .build();
    }

    /**
     * Forwards {@code req} and writes the sandbox's answer to {@code resp}. {@code slot} (held for
     * an upgrade) passes to the relay when the sandbox switches protocols and is closed otherwise.
     *
     * @throws dev.agentbox.problem.ProblemException before anything was written to {@code resp}
     */
    void forward(HttpServletRequest req, HttpServletResponse resp, Target t, Slot slot)
            throws IOException, ServletException {
        if (ProxyHeaders.isUpgrade(req)) {
            new PortUpgrade(settings).forward(req, resp, t, slot);
            return;
        }
        slot.close();
        HttpUriRequestBase request = new HttpUriRequestBase(req.getMethod(), URI.create("/"));
        // The raw path, not a URI's reading of it: "//x" or "%2F" reach the sandbox as sent.
        request.setPath(t.pathAndQuery());
        ProxyHeaders.toSandbox(req, t, request);
        ClassicHttpResponse response;
        try {
            request.setEntity(ProxiedBody.of(req, settings.maxBodyBytes()));
            response = client.executeOpen(host(t.address()), request, null);
        } catch (IOException e) {
            throw PortFailures.of(e, t, settings);
        }
        boolean complete = false;
        try {
            ProxiedResponse.relay(req, resp, response);
            complete = true;
        } finally {
            if (!complete) {
                // Closing alone would read the rest of the body first (to reuse the connection):
                // endless for an event stream whose reader went away.
                request.cancel();
            }
            closeQuietly(response);
        }
    }

    /** The sandbox's address as the client's target, without a reverse lookup of its name. */
    private static HttpHost host(InetSocketAddress a) {
        return a.getAddress() == null
                ? new HttpHost("http", a.getHostString(), a.getPort())
                : new HttpHost(
                        "http", a.getAddress(), a.getAddress().getHostAddress(), a.getPort());
    }

    private static void closeQuietly(ClassicHttpResponse response) {
        try {
            response.close();
        } catch (IOException e) {
            LOG.log(Level.FINE, "closing a proxied response", e);
        }
    }

    @Override
    public void close() {
        client.close(CloseMode.IMMEDIATE);
    }
}
