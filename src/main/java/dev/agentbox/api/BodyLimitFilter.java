package dev.agentbox.api;

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
 * Content-Length says so, and mid-stream for chunked bodies (the entity stream is capped,
 * so no body is ever buffered past the limit).
 */
@Provider
@PreMatching
@Priority(Priorities.AUTHENTICATION - 100)
public class BodyLimitFilter implements ContainerRequestFilter {

    @Inject
    @ConfigProperty(name = "agentbox.http.max-body-bytes", defaultValue = "16777216")
    long maxBodyBytes;

    @Override
    public void filter(ContainerRequestContext request) {
        if (request.getLength() > maxBodyBytes) {
            throw tooLarge();
        }
        if (request.hasEntity()) {
            request.setEntityStream(new CappedInputStream(request.getEntityStream(), maxBodyBytes));
        }
    }

    private ProblemException tooLarge() {
        return new ProblemException(413, "payload-too-large",
                "The request body exceeds the limit of " + maxBodyBytes + " bytes (agentbox.http.max-body-bytes).");
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
