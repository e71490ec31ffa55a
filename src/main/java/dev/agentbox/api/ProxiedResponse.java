package dev.agentbox.api;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;

/**
 * Writes a sandbox's (non-{@code 101}) response to the caller as it arrives.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>Bytes are flushed to the caller whenever the sandbox has sent nothing more yet, so a slow
 *       stream (server-sent events, a long download) reaches the caller as it comes, never buffered
 *       whole.
 *   <li>The container frames the reply: the sandbox's {@code Content-Length} becomes the reply's, a
 *       chunked or unframed body is sent in the container's own framing.
 *   <li>A {@code HEAD} answer and a {@code 204}/{@code 304} have no body.
 * </ul>
 */
final class ProxiedResponse {

    private static final int BUFFER = 16 * 1024;

    private ProxiedResponse() {}

    static void relay(HttpServletRequest req, HttpServletResponse resp, ClassicHttpResponse in)
            throws IOException {
        ProxyHeaders.toClient(in, resp);
        int status = in.getCode();
        HttpEntity entity = in.getEntity();
        if ("HEAD".equals(req.getMethod())) {
            // No entity on a HEAD answer: its length is the length the GET would have.
            Header length = in.getFirstHeader("Content-Length");
            if (length != null && length.getValue().matches("[0-9]{1,18}")) {
                resp.setContentLengthLong(Long.parseLong(length.getValue()));
            }
            return;
        }
        if (entity == null || status == 204 || status == 304) {
            return;
        }
        if (!entity.isChunked() && entity.getContentLength() >= 0) {
            resp.setContentLengthLong(entity.getContentLength());
        }
        // Not closed here when the copy fails: closing would read the rest of an endless stream.
        // The caller aborts the exchange instead.
        OutputStream out = resp.getOutputStream();
        copy(entity.getContent(), out);
        out.flush();
    }

    /** Copies to the end, flushing whenever {@code in} has nothing more at hand. */
    private static void copy(InputStream in, OutputStream out) throws IOException {
        byte[] buf = new byte[BUFFER];
        for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
            out.write(buf, 0, n);
            if (in.available() == 0) {
                out.flush();
            }
        }
    }
}
