package dev.agentbox.api;

import dev.agentbox.problem.ProblemCode;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The web container's error page (see web.xml): paths outside the JAX-RS application and
 * container-level failures answer problem+json too, never an HTML page or a stack trace.
 */
@WebServlet("/_error")
public class ErrorServlet extends HttpServlet {

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        Object code = req.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        int status = code instanceof Integer i ? i : 404;
        String detail =
                switch (status) {
                    case 404 -> "No resource at this path.";
                    case 405 -> "This method is not allowed on this resource.";
                    default -> status >= 500 ? "Unexpected server error." : "Request rejected.";
                };
        resp.setStatus(status);
        resp.setContentType(Problems.MEDIA_TYPE);
        resp.setCharacterEncoding("UTF-8");
        resp.getOutputStream()
                .write(
                        Problems.json(ProblemCode.forStatus(status), detail, Map.of())
                                .getBytes(StandardCharsets.UTF_8));
    }
}
