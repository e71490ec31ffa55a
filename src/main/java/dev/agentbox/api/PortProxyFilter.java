package dev.agentbox.api;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.quota.Quota;
import dev.agentbox.quota.Slot;
import dev.agentbox.quota.TenantQuotas;
import dev.agentbox.sandbox.Sandbox;
import dev.agentbox.sandbox.SandboxService;
import jakarta.inject.Inject;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The port proxy, {@code /api/v1/sandboxes/{key}/ports/{port}/proxy/{path}}: any method, any port
 * 1–65535 the sandbox listens on, nothing published on the host (docs/api.md, "Port proxy").
 *
 * <p>A servlet filter rather than a JAX-RS resource because it must stream arbitrary bodies both
 * ways and hand an upgraded connection ({@code 101}, e.g. a WebSocket) to a raw relay, which only
 * the servlet API can do. It sits in front of the JAX-RS servlet and takes only paths of that exact
 * shape; everything else passes down the chain untouched.
 *
 * <p>It applies the same checks as every other endpoint, in the same order and with the same
 * answers: the bearer token through {@link TenantTokens#authenticate} ({@code 401} before anything
 * else), then the caller's own sandbox through {@link SandboxService#open} (another tenant's key is
 * {@code 404}). An upgraded connection is long-lived, so it holds one of the tenant's {@code
 * streams} slots ({@link Quota#STREAMS}) while it lasts.
 *
 * <p>{@code asyncSupported}: every API request passes this filter, and an SSE stream (run events,
 * process output) is an asynchronous request; a filter in its chain without the flag makes the
 * container refuse it.
 */
@WebFilter(urlPatterns = "/api/*", asyncSupported = true)
public class PortProxyFilter extends HttpFilter {

    private static final Logger LOG = Logger.getLogger(PortProxyFilter.class.getName());

    /** Raw (still percent-encoded) path after the context root. */
    static final Pattern PROXY_PATH =
            Pattern.compile("/api/v1/sandboxes/([^/;]+)/ports/([^/;]+)/proxy(/.*)?");

    @Inject TenantTokens tokens;

    @Inject SandboxService sandboxes;

    @Inject TenantQuotas quotas;

    @Inject
    @ConfigProperty(name = "agentbox.ports.proxy.connect-timeout-ms")
    int connectTimeoutMs;

    @Inject
    @ConfigProperty(name = "agentbox.ports.proxy.read-timeout-ms")
    int readTimeoutMs;

    @Inject
    @ConfigProperty(name = "agentbox.http.max-body-bytes")
    long maxBodyBytes;

    /** Built once the configuration is injected; its pooled connections close with the filter. */
    private PortProxy proxy;

    @Override
    public void init() {
        proxy =
                new PortProxy(
                        new PortProxy.Settings(connectTimeoutMs, readTimeoutMs, maxBodyBytes));
    }

    @Override
    public void destroy() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Override
    protected void doFilter(HttpServletRequest req, HttpServletResponse resp, FilterChain chain)
            throws IOException, ServletException {
        String path = req.getRequestURI().substring(req.getContextPath().length());
        Matcher m = PROXY_PATH.matcher(path);
        if (!m.matches()) {
            chain.doFilter(req, resp);
            return;
        }
        try {
            String header = req.getHeader("Authorization");
            Optional<String> tenant = tokens.authenticate(header);
            if (tenant.isEmpty()) {
                write(
                        resp,
                        Problems.builder(
                                        ProblemCode.UNAUTHORIZED,
                                        TenantTokens.refusal(header),
                                        Map.of())
                                .header("WWW-Authenticate", "Bearer realm=\"agentbox\"")
                                .build());
                return;
            }
            String key = URLDecoder.decode(m.group(1).replace("+", "%2B"), StandardCharsets.UTF_8);
            int port = port(m.group(2));
            Sandbox sandbox = sandboxes.open(tenant.get(), key);
            InetSocketAddress address = sandbox.handle().ports().address(port);
            String rest = m.group(3) == null ? "/" : m.group(3);
            String query = req.getQueryString();
            PortProxy.Target target =
                    new PortProxy.Target(
                            address,
                            port,
                            key,
                            query == null ? rest : rest + "?" + query,
                            req.getContextPath()
                                    + path.substring(
                                            0,
                                            path.length()
                                                    - (m.group(3) == null
                                                            ? 0
                                                            : m.group(3).length())));
            Slot slot =
                    ProxyHeaders.isUpgrade(req)
                            ? quotas.acquire(tenant.get(), Quota.STREAMS)
                            : Slot.NONE;
            proxy.forward(req, resp, target, slot);
        } catch (RuntimeException e) {
            if (resp.isCommitted()) {
                LOG.log(Level.FINE, "proxied response cut short", e);
                return;
            }
            resp.reset();
            write(resp, new ProblemMapper().toResponse(e));
        } catch (IOException e) {
            // the client or the sandbox went away mid-stream: nothing left to tell anyone
            LOG.log(Level.FINE, "proxied exchange ended early", e);
        }
    }

    /** The port segment: digits only, 1–65535. */
    static int port(String segment) {
        if (!segment.matches("[0-9]{1,5}")) {
            throw ProblemException.invalidRequest("port must be a number 1–65535: " + segment);
        }
        int port = Integer.parseInt(segment);
        if (port < 1 || port > 65535) {
            throw ProblemException.invalidRequest("port out of range: " + port);
        }
        return port;
    }

    private static void write(HttpServletResponse resp, Response problem) throws IOException {
        resp.setStatus(problem.getStatus());
        for (Map.Entry<String, List<String>> h : problem.getStringHeaders().entrySet()) {
            for (String v : h.getValue()) {
                resp.addHeader(h.getKey(), v);
            }
        }
        resp.setContentType(Problems.MEDIA_TYPE);
        resp.setCharacterEncoding("UTF-8");
        resp.getOutputStream()
                .write(String.valueOf(problem.getEntity()).getBytes(StandardCharsets.UTF_8));
    }
}
