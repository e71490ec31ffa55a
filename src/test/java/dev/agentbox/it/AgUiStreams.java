package dev.agentbox.it;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.StringReader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * Records every complete AG-UI stream the integration tests read, so that the build can run them
 * all through the real {@code @ag-ui} client's checks ({@code src/test/node/verify-streams.mjs}).
 *
 * <ul>
 *   <li>Complete = it began at the run's first chunk (no {@code Last-Event-ID}, no {@code after},
 *       no {@code offset} but {@code -1}) and reached {@code RUN_FINISHED} or {@code RUN_ERROR}. A
 *       stream a test closes early, or a page of a log, is partial and not recorded.
 *   <li>Each stream is one NDJSON file (a chunk a line, in order) under the directory of system
 *       property {@code agentbox.it.streams-dir}; without that property nothing is recorded.
 *   <li>Recording never fails the test that reads: an error is reported on stderr and that stream
 *       is dropped. Chunks that arrive after the terminal one are appended, so the verifier sees
 *       them.
 * </ul>
 */
final class AgUiStreams {

    private static final String DIR_PROPERTY = "agentbox.it.streams-dir";
    private static final Set<String> TERMINAL = Set.of("RUN_FINISHED", "RUN_ERROR");
    private static final Pattern RUN_LOG = Pattern.compile("/api/v1/runs/[^/]+/log");
    private static final Pattern UNSAFE = Pattern.compile("[^A-Za-z0-9._-]");
    private static final String JVM = UUID.randomUUID().toString().substring(0, 8);
    private static final AtomicLong COUNTER = new AtomicLong();

    private AgUiStreams() {}

    /** Receives the events of one SSE stream, in order. */
    interface Recording {
        void event(String name, String data);
    }

    private static final Recording NONE = (name, data) -> {};

    /** A recording for the SSE stream {@code request} opened, or one that records nothing. */
    static Recording sse(HttpRequest request, int status) {
        Path dir = dir();
        if (dir == null || status != 200 || resumes(request)) {
            return NONE;
        }
        return new SseRecording(dir, "sse");
    }

    /**
     * Records what a plain request read, when it is a whole stream: an SSE body read as a string,
     * or a run's whole stored log ({@code GET /runs/{id}/log} without {@code after}).
     */
    static void response(HttpRequest request, HttpResponse<String> response) {
        Path dir = dir();
        if (dir == null || response.statusCode() != 200 || resumes(request)) {
            return;
        }
        try {
            String type = response.headers().firstValue("Content-Type").orElse("");
            if (type.startsWith("text/event-stream")) {
                recordSseText(new SseRecording(dir, "sse-text"), response.body());
            } else if ("GET".equals(request.method())
                    && RUN_LOG.matcher(request.uri().getRawPath()).matches()) {
                recordLog(dir, response.body());
            }
        } catch (RuntimeException e) {
            warn(request.uri() + ": " + e);
        }
    }

    private static void recordLog(Path dir, String body) {
        JsonArray log = Json.createReader(new StringReader(body)).readArray();
        List<String> lines = new ArrayList<>();
        for (JsonValue entry : log) {
            lines.add(entry.asJsonObject().getJsonObject("chunk").toString());
        }
        if (!lines.isEmpty() && terminal(lines.get(lines.size() - 1))) {
            write(dir, "log", lines);
        }
    }

    private static void recordSseText(Recording recording, String body) {
        String name = "message";
        StringBuilder data = null;
        for (String line : (body + "\n\n").split("\r?\n", -1)) {
            if (line.isEmpty()) {
                if (data != null) {
                    recording.event(name, data.toString());
                }
                name = "message";
                data = null;
            } else if (line.startsWith("event:")) {
                name = line.substring(6).trim();
            } else if (line.startsWith("data:")) {
                String d = line.substring(5);
                d = d.startsWith(" ") ? d.substring(1) : d;
                data = data == null ? new StringBuilder(d) : data.append('\n').append(d);
            }
        }
    }

    /** Collects a stream's chunks; writes them when the terminal one arrives. */
    private static final class SseRecording implements Recording {
        private final Path dir;
        private final String source;
        private final List<String> chunks = new ArrayList<>();
        private Path file;
        private boolean failed;

        SseRecording(Path dir, String source) {
            this.dir = dir;
            this.source = source;
        }

        @Override
        public void event(String name, String data) {
            if (failed) {
                return;
            }
            // Multi-line data is JSON split between tokens: a space keeps it the same JSON.
            String line = data.replace('\n', ' ');
            try {
                if (file != null) {
                    Files.writeString(
                            file, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
                    return;
                }
                chunks.add(line);
                if (TERMINAL.contains(name) || terminal(line)) {
                    file = write(dir, source, chunks);
                    failed = file == null;
                }
            } catch (IOException | RuntimeException e) {
                failed = true;
                warn(e.toString());
            }
        }
    }

    /** Whether the request starts after the first chunk (those streams are partial). */
    private static boolean resumes(HttpRequest request) {
        if (request.headers().firstValue("Last-Event-ID").isPresent()) {
            return true;
        }
        String query = request.uri().getRawQuery();
        if (query == null) {
            return false;
        }
        for (String param : query.split("&")) {
            if (param.startsWith("after=")
                    || (param.startsWith("offset=") && !param.equals("offset=-1"))) {
                return true;
            }
        }
        return false;
    }

    private static boolean terminal(String chunk) {
        if (!chunk.contains("RUN_FINISHED") && !chunk.contains("RUN_ERROR")) {
            return false;
        }
        try {
            JsonObject o = Json.createReader(new StringReader(chunk)).readObject();
            return TERMINAL.contains(o.getString("type", ""));
        } catch (RuntimeException notAChunk) {
            return false;
        }
    }

    private static Path write(Path dir, String source, List<String> chunks) {
        try {
            Files.createDirectories(dir);
            Path file =
                    dir.resolve(
                            source
                                    + "-"
                                    + runId(chunks.get(0))
                                    + "-"
                                    + JVM
                                    + "-"
                                    + COUNTER.incrementAndGet()
                                    + ".ndjson");
            Files.write(file, chunks, StandardCharsets.UTF_8);
            return file;
        } catch (IOException | RuntimeException e) {
            warn(e.toString());
            return null;
        }
    }

    private static String runId(String chunk) {
        try {
            String id = Json.createReader(new StringReader(chunk)).readObject().getString("runId");
            String safe = UNSAFE.matcher(id).replaceAll("_");
            return safe.length() > 60 ? safe.substring(0, 60) : safe;
        } catch (RuntimeException e) {
            return "run";
        }
    }

    private static Path dir() {
        String dir = System.getProperty(DIR_PROPERTY);
        return dir == null || dir.isBlank() ? null : Path.of(dir);
    }

    private static void warn(String message) {
        System.err.println("[agui-streams] not recorded: " + message);
    }
}
