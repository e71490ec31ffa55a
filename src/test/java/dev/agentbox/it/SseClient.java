package dev.agentbox.it;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Reads an SSE stream on a background thread into a queue of events. Close to disconnect. A whole
 * AG-UI stream it reads is recorded for the client checks ({@link AgUiStreams}).
 */
public final class SseClient implements AutoCloseable {

    public record Event(String id, String name, String data) {}

    private static final Event END = new Event(null, "__end__", "");

    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final InputStream body;
    private final int status;
    private final AgUiStreams.Recording recording;

    private SseClient(HttpResponse<InputStream> response, AgUiStreams.Recording recording) {
        this.status = response.statusCode();
        this.body = response.body();
        this.recording = recording;
        Thread reader = new Thread(this::read, "sse-client");
        reader.setDaemon(true);
        reader.start();
    }

    public static SseClient open(HttpRequest.Builder request) {
        try {
            HttpRequest built = request.header("Accept", "text/event-stream").build();
            HttpResponse<InputStream> r =
                    HttpClient.newBuilder()
                            // HTTP/1.1, as browsers and the JavaScript clients speak to a
                            // plain-HTTP
                            // server: Java's default offer of h2c led the server, busy with a
                            // hundred streams, to end some with GOAWAY.
                            .version(HttpClient.Version.HTTP_1_1)
                            .connectTimeout(Duration.ofSeconds(5))
                            .build()
                            .send(built, HttpResponse.BodyHandlers.ofInputStream());
            return new SseClient(r, AgUiStreams.sse(built, r.statusCode()));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public int status() {
        return status;
    }

    private void read() {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
            String id = null;
            String name = "message";
            StringBuilder data = null;
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isEmpty()) {
                    if (data != null) {
                        // Recorded before the test can see it: a test that stops at the terminal
                        // chunk finds its stream already written.
                        recording.event(name, data.toString());
                        events.add(new Event(id, name, data.toString()));
                    }
                    id = null;
                    name = "message";
                    data = null;
                } else if (line.startsWith("id:")) {
                    id = line.substring(3).trim();
                } else if (line.startsWith("event:")) {
                    name = line.substring(6).trim();
                } else if (line.startsWith("data:")) {
                    String d = line.substring(5);
                    d = d.startsWith(" ") ? d.substring(1) : d;
                    data = data == null ? new StringBuilder(d) : data.append('\n').append(d);
                }
            }
        } catch (Exception closed) {
            // disconnected
        } finally {
            events.add(END);
        }
    }

    /** The next event, or null at the end of the stream; fails after {@code timeout}. */
    public Event next(Duration timeout) {
        try {
            Event e = events.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (e == null) {
                throw new AssertionError("no SSE event within " + timeout);
            }
            return e == END ? null : e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        try {
            body.close();
        } catch (Exception ignored) {
            // already closed
        }
    }
}
