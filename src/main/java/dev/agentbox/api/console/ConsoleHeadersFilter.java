package dev.agentbox.api.console;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * The operator console's static files ({@code src/main/webapp/console}, docs/console.md): the
 * browser's security headers on every one of them, {@code /console} redirected to {@code
 * /console/}, and {@code /console/} answered with its {@code index.html}.
 *
 * <ul>
 *   <li>The files hold no data and are served without a token; every call they make goes to {@code
 *       /api}, which authenticates as always ({@code BearerAuthFilter}).
 *   <li>The policy allows only the console's own scripts and styles and calls to this origin: the
 *       console shows run output, which is hostile data, so an injection that slipped past its DOM
 *       building could neither run inline script nor send anything elsewhere.
 *   <li>{@code no-cache}: a browser revalidates, so an upgraded server never runs with an old
 *       script next to a new one.
 * </ul>
 */
@WebFilter("/console/*")
public class ConsoleHeadersFilter extends HttpFilter {

    static final String CONTENT_SECURITY_POLICY =
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
                    + " connect-src 'self'; frame-ancestors 'none'; base-uri 'none';"
                    + " form-action 'none'";

    @Override
    protected void doFilter(HttpServletRequest req, HttpServletResponse resp, FilterChain chain)
            throws IOException, ServletException {
        resp.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        resp.setHeader("X-Content-Type-Options", "nosniff");
        resp.setHeader("Referrer-Policy", "no-referrer");
        resp.setHeader("Cache-Control", "no-cache");
        String path = req.getRequestURI().substring(req.getContextPath().length());
        if (path.equals("/console")) {
            // Relative URLs in index.html (console.css, js/…) resolve only under the slash.
            resp.sendRedirect(req.getContextPath() + "/console/");
            return;
        }
        if (path.equals("/console/")) {
            // Not left to the container's welcome files, which the WAR does not configure.
            req.getRequestDispatcher("/console/index.html").forward(req, resp);
            return;
        }
        chain.doFilter(req, resp);
    }
}
