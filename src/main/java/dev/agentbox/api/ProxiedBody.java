package dev.agentbox.api;

import jakarta.servlet.http.HttpServletRequest;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.InputStreamEntity;

/**
 * The caller's request body as the entity sent to the sandbox: streamed from the servlet input as
 * the sandbox reads it, never held whole.
 *
 * <ul>
 *   <li>A declared {@code Content-Length} is sent as it is; one over the limit is refused before
 *       anything is sent ({@link PortFailures#tooLarge}).
 *   <li>A body of unknown length ({@code Transfer-Encoding: chunked} from the caller) is sent
 *       chunked and counted as it passes: the byte past the limit fails the exchange with {@link
 *       PortFailures.BodyTooLarge}.
 * </ul>
 */
final class ProxiedBody {

    private ProxiedBody() {}

    /**
     * The entity for {@code req}, or {@code null} when it has no body. {@code Content-Type} is not
     * set on it: it crosses with the caller's other fields.
     */
    static HttpEntity of(HttpServletRequest req, long maxBytes) throws IOException {
        long declared = req.getContentLengthLong();
        if (declared > maxBytes) {
            throw new PortFailures.BodyTooLarge();
        }
        if (req.getHeader("Transfer-Encoding") != null) {
            return new InputStreamEntity(bounded(req.getInputStream(), maxBytes), -1, null);
        }
        if (declared == 0) {
            return new ByteArrayEntity(new byte[0], null);
        }
        if (declared > 0) {
            return new InputStreamEntity(req.getInputStream(), declared, null);
        }
        return null;
    }

    /** {@code in}, failing with {@link PortFailures.BodyTooLarge} once past {@code maxBytes}. */
    static InputStream bounded(InputStream in, long maxBytes) {
        return new FilterInputStream(in) {
            private long total;

            @Override
            public int read() throws IOException {
                int c = super.read();
                if (c >= 0) {
                    count(1);
                }
                return c;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                int n = super.read(b, off, len);
                if (n > 0) {
                    count(n);
                }
                return n;
            }

            private void count(int n) throws IOException {
                total += n;
                if (total > maxBytes) {
                    throw new PortFailures.BodyTooLarge();
                }
            }
        };
    }
}
