package dev.agentbox.api;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.ext.Provider;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Rejects bodies over {@code agentbox.http.max-body-bytes} with {@code 413}: at once when
 * Content-Length says so, and mid-stream for chunked bodies (the entity stream is capped, so no
 * body is ever buffered past the limit).
 */
@Provider
@PreMatching
@Priority(Priorities.AUTHENTICATION - 100)
public class BodyLimitFilter implements ContainerRequestFilter {

    @Inject
    @ConfigProperty(name = "agentbox.http.max-body-bytes")
    long maxBodyBytes;

    @Override
    public void filter(ContainerRequestContext request) {
        if (declaredLength(request.getHeaderString("Content-Length")) > maxBodyBytes) {
            throw tooLarge();
        }
        if (request.hasEntity()) {
            request.setEntityStream(new CappedInputStream(request.getEntityStream(), maxBodyBytes));
        }
    }

    /**
     * The Content-Length read as a long here, not through {@code getLength()}: that parses an int,
     * so a length past 2 GiB failed (500) or read as "unknown" and the server then waited for a
     * body that never came. Anything else than digits is left to the container (-1 = unknown; the
     * entity stream is capped either way).
     */
    static long declaredLength(String header) {
        if (header == null) {
            return -1;
        }
        String v = header.split(",", 2)[0].trim();
        if (v.isEmpty() || !v.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        return v.length() > 18 ? Long.MAX_VALUE : Long.parseLong(v);
    }

    private ProblemException tooLarge() {
        return new ProblemException(
                ProblemCode.PAYLOAD_TOO_LARGE,
                "The request body exceeds the limit of "
                        + maxBodyBytes
                        + " bytes (agentbox.http.max-body-bytes).");
    }

    private final class CappedInputStream extends FilterInputStream {
        private final long cap;
        private long seen;

        CappedInputStream(InputStream in, long cap) {
            super(in);
            this.cap = cap;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buf, int off, int len) throws IOException {
            int n = super.read(buf, off, len);
            if (n > 0) {
                count(n);
            }
            return n;
        }

        private void count(int n) {
            seen += n;
            if (seen > cap) {
                throw tooLarge();
            }
        }
    }
}
