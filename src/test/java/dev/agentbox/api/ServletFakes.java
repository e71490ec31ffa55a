package dev.agentbox.api;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A servlet request and response with just what the port proxy reads and writes, for driving it
 * without a container. Anything else it calls fails the test.
 */
final class ServletFakes {

    private ServletFakes() {}

    /** A request: its fields in order, its body and its declared length ({@code -1}: none). */
    static HttpServletRequest request(
            String method, Map<String, List<String>> fields, InputStream body, long length) {
        Map<String, List<String>> byName = new LinkedHashMap<>();
        fields.forEach((k, v) -> byName.put(k.toLowerCase(Locale.ROOT), v));
        ServletInputStream in =
                new ServletInputStream() {
                    @Override
                    public int read() throws IOException {
                        return body.read();
                    }

                    @Override
                    public int read(byte[] b, int off, int len) throws IOException {
                        return body.read(b, off, len);
                    }

                    @Override
                    public boolean isFinished() {
                        return false;
                    }

                    @Override
                    public boolean isReady() {
                        return true;
                    }

                    @Override
                    public void setReadListener(ReadListener l) {
                        throw new UnsupportedOperationException();
                    }
                };
        return (HttpServletRequest)
                Proxy.newProxyInstance(
                        ServletFakes.class.getClassLoader(),
                        new Class<?>[] {HttpServletRequest.class},
                        (proxy, m, args) ->
                                switch (m.getName()) {
                                    case "getMethod" -> method;
                                    case "getHeader" -> {
                                        List<String> v =
                                                byName.get(
                                                        ((String) args[0])
                                                                .toLowerCase(Locale.ROOT));
                                        yield v == null ? null : v.get(0);
                                    }
                                    case "getHeaders" ->
                                            Collections.enumeration(
                                                    byName.getOrDefault(
                                                            ((String) args[0])
                                                                    .toLowerCase(Locale.ROOT),
                                                            List.of()));
                                    case "getHeaderNames" ->
                                            Collections.enumeration(fields.keySet());
                                    case "getContentLengthLong" -> length;
                                    case "getInputStream" -> in;
                                    case "getRemoteAddr" -> "192.0.2.7";
                                    case "getScheme" -> "https";
                                    default -> throw new UnsupportedOperationException(m.getName());
                                });
    }

    /** What the proxy wrote: status, fields, length, and the body with each flush marked. */
    static final class Response {
        volatile int status;
        final List<Map.Entry<String, String>> fields =
                Collections.synchronizedList(new ArrayList<>());
        volatile long contentLength = -1;
        private final ByteArrayOutputStream body = new ByteArrayOutputStream();
        private final ByteArrayOutputStream flushed = new ByteArrayOutputStream();

        /** The body's writes fail once this many bytes are written: the caller went away. */
        volatile long failAfter = Long.MAX_VALUE;

        /** The bytes flushed to the caller so far. */
        synchronized String flushed() {
            return flushed.toString(StandardCharsets.ISO_8859_1);
        }

        synchronized String body() {
            return body.toString(StandardCharsets.ISO_8859_1);
        }

        List<String> all(String name) {
            synchronized (fields) {
                return fields.stream()
                        .filter(f -> f.getKey().equalsIgnoreCase(name))
                        .map(Map.Entry::getValue)
                        .toList();
            }
        }

        HttpServletResponse servlet() {
            ServletOutputStream out =
                    new ServletOutputStream() {
                        @Override
                        public void write(int b) throws IOException {
                            write(new byte[] {(byte) b}, 0, 1);
                        }

                        @Override
                        public void write(byte[] b, int off, int len) throws IOException {
                            synchronized (Response.this) {
                                if (body.size() + len > failAfter) {
                                    throw new IOException("the caller went away");
                                }
                                body.write(b, off, len);
                            }
                        }

                        @Override
                        public void flush() {
                            synchronized (Response.this) {
                                flushed.reset();
                                flushed.writeBytes(body.toByteArray());
                            }
                        }

                        @Override
                        public boolean isReady() {
                            return true;
                        }

                        @Override
                        public void setWriteListener(WriteListener l) {
                            throw new UnsupportedOperationException();
                        }
                    };
            return (HttpServletResponse)
                    Proxy.newProxyInstance(
                            ServletFakes.class.getClassLoader(),
                            new Class<?>[] {HttpServletResponse.class},
                            (proxy, m, args) -> {
                                switch (m.getName()) {
                                    case "setStatus" -> status = (Integer) args[0];
                                    case "addHeader" ->
                                            fields.add(
                                                    Map.entry((String) args[0], (String) args[1]));
                                    case "setHeader" -> {
                                        fields.removeIf(
                                                f -> f.getKey().equalsIgnoreCase((String) args[0]));
                                        fields.add(Map.entry((String) args[0], (String) args[1]));
                                    }
                                    case "setContentLengthLong" -> contentLength = (Long) args[0];
                                    case "getOutputStream" -> {
                                        return out;
                                    }
                                    default -> throw new UnsupportedOperationException(m.getName());
                                }
                                return null;
                            });
        }
    }
}
