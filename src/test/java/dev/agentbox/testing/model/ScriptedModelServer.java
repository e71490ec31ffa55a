package dev.agentbox.testing.model;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPInputStream;

/**
 * A model API for tests, answering from a script instead of a model: the Anthropic Messages API
 * ({@code POST /v1/messages}, what Claude Code calls), the OpenAI Responses API ({@code POST
 * /v1/responses}, what Codex calls) and the Gemini API ({@code POST
 * /v1beta/models/MODEL:streamGenerateContent?alt=sse}, what the Gemini CLI calls), all streaming
 * server-sent events as the real APIs do.
 *
 * <ul>
 *   <li>Each streaming model request takes the next {@link Turn} of the script, whichever API it
 *       came in: text, a tool call, an API error or a stream cut short. A request that finds the
 *       script empty gets HTTP 500 saying so (and is marked {@link RecordedRequest#exhausted()}).
 *   <li>The key is checked: Anthropic's {@code x-api-key} (or {@code Authorization: Bearer}),
 *       OpenAI's {@code Authorization: Bearer}, Gemini's {@code x-goog-api-key}; a wrong or missing
 *       one is HTTP 401 in the API's error format and takes no turn.
 *   <li>Everything else a CLI may ask is answered harmlessly and takes no turn: a non-streaming
 *       message (one {@code ok} text block; Gemini's {@code :generateContent} likewise), {@code
 *       count_tokens} (Gemini's {@code :countTokens}), the model lists; anything else is a 404 with
 *       a JSON error.
 *   <li>Every request is recorded ({@link #requests()}), in order, with its headers and body.
 * </ul>
 *
 * It binds to loopback on an ephemeral port unless told another address, so a test can also put it
 * where a sandbox reaches it. It only answers; it never connects anywhere.
 */
public final class ScriptedModelServer implements AutoCloseable {

    /** One request as received, and how it was answered. */
    public record RecordedRequest(
            String method,
            String path,
            Map<String, String> headers,
            String body,
            int status,
            String kind,
            boolean exhausted) {

        /** The body as a JSON object, when it is one. */
        public Optional<JsonObject> json() {
            return parseObject(body);
        }

        /** The header's value (names are lower-case), if sent. */
        public Optional<String> header(String name) {
            return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT)));
        }
    }

    /** Model requests that took a turn (or found the script empty). */
    public static final String MODEL = "model";

    /** Requests answered without the script: token counts, model lists, non-streaming calls. */
    public static final String AUXILIARY = "auxiliary";

    /** Requests refused: a wrong key, an unknown path. */
    public static final String REFUSED = "refused";

    /** {@code /v1beta/models/MODEL:METHOD}, Gemini's model methods. */
    private static final java.util.regex.Pattern GEMINI =
            java.util.regex.Pattern.compile("/v1beta/models/([^/:]+):([A-Za-z]+)");

    private final HttpServer server;
    private final ExecutorService executor;
    private final String expectedKey;
    private final Deque<Turn> script = new ArrayDeque<>();
    private final List<RecordedRequest> requests = new ArrayList<>();
    private final AtomicInteger ids = new AtomicInteger();

    private ScriptedModelServer(InetSocketAddress address, String expectedKey) throws IOException {
        this.expectedKey = expectedKey;
        this.server = HttpServer.create(address, 16);
        this.executor =
                Executors.newCachedThreadPool(
                        r -> {
                            Thread t = new Thread(r, "scripted-model");
                            t.setDaemon(true);
                            return t;
                        });
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    /** A server on loopback ({@code 127.0.0.1}), on an ephemeral port. */
    public static ScriptedModelServer start(String expectedKey) {
        return start(InetAddress.getLoopbackAddress(), 0, expectedKey);
    }

    /** A server on {@code address}:{@code port} ({@code 0}: an ephemeral port). */
    public static ScriptedModelServer start(InetAddress address, int port, String expectedKey) {
        try {
            return new ScriptedModelServer(new InetSocketAddress(address, port), expectedKey);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Appends turns to the script. */
    public synchronized ScriptedModelServer enqueue(Turn... turns) {
        script.addAll(List.of(turns));
        return this;
    }

    /** Turns not taken yet. */
    public synchronized int remainingTurns() {
        return script.size();
    }

    /** Every request so far, in the order they arrived. */
    public synchronized List<RecordedRequest> requests() {
        return List.copyOf(requests);
    }

    /** The requests that took a turn (or found the script empty). */
    public synchronized List<RecordedRequest> modelRequests() {
        return requests.stream().filter(r -> r.kind().equals(MODEL)).toList();
    }

    /** Forgets the recorded requests (the script stays). */
    /**
     * The lines of a Codex {@code config.toml} whose only provider is a scripted server at {@code
     * baseUrl} (the Responses API), with {@code retries} retries and every feature that would reach
     * another host (update checks, analytics, plugin and app catalogues) off.
     */
    public static List<String> codexConfig(String baseUrl, int retries) {
        return List.of(
                "model_provider = \"scripted\"",
                "model = \"gpt-5.5\"",
                "check_for_update_on_startup = false",
                "[analytics]",
                "enabled = false",
                "[features]",
                "plugins = false",
                "remote_plugin = false",
                "apps = false",
                "[model_providers.scripted]",
                "name = \"scripted\"",
                "base_url = \"" + baseUrl + "\"",
                "env_key = \"OPENAI_API_KEY\"",
                "wire_api = \"responses\"",
                "request_max_retries = " + retries,
                "stream_max_retries = " + retries);
    }

    /** Drops the turns not taken yet (a test that failed early leaves none to the next). */
    public synchronized void clearScript() {
        script.clear();
    }

    public synchronized void clearRequests() {
        requests.clear();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** {@code http://host:port}: Anthropic clients append {@code /v1/messages}. */
    public String anthropicBaseUrl() {
        return "http://" + hostForUrl() + ":" + port();
    }

    /** {@code http://host:port}: Gemini clients append {@code /v1beta/models/…}. */
    public String geminiBaseUrl() {
        return anthropicBaseUrl();
    }

    /** {@code http://host:port/v1}: OpenAI clients append {@code /responses}. */
    public String openAiBaseUrl() {
        return anthropicBaseUrl() + "/v1";
    }

    private String hostForUrl() {
        InetAddress a = server.getAddress().getAddress();
        String host = a.getHostAddress();
        return host.contains(":") ? "[" + host + "]" : host;
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String method = ex.getRequestMethod();
            String path = ex.getRequestURI().getPath();
            String body = readBody(ex);
            Map<String, String> headers = headers(ex.getRequestHeaders());
            Optional<JsonObject> json = parseObject(body);
            boolean streaming = json.map(o -> o.get("stream") == JsonValue.TRUE).orElse(false);
            if (method.equals("POST") && path.equals("/v1/messages")) {
                if (!anthropicKeyOk(headers)) {
                    record(method, path, headers, body, 401, REFUSED, false);
                    sendJson(ex, 401, anthropicError("authentication_error", "invalid x-api-key"));
                } else if (!streaming) {
                    record(method, path, headers, body, 200, AUXILIARY, false);
                    sendJson(ex, 200, anthropicMessage(json.orElse(JsonValue.EMPTY_JSON_OBJECT)));
                } else {
                    anthropicTurn(ex, method, path, headers, body, json.orElseThrow());
                }
            } else if (method.equals("POST") && path.equals("/v1/messages/count_tokens")) {
                record(method, path, headers, body, 200, AUXILIARY, false);
                sendJson(
                        ex,
                        200,
                        Json.createObjectBuilder()
                                .add("input_tokens", Math.max(1, body.length() / 4))
                                .build());
            } else if (method.equals("POST") && path.equals("/v1/responses")) {
                if (!bearerOk(headers)) {
                    record(method, path, headers, body, 401, REFUSED, false);
                    sendJson(
                            ex,
                            401,
                            openAiError("invalid_request_error", "Incorrect API key provided"));
                } else {
                    openAiTurn(
                            ex,
                            method,
                            path,
                            headers,
                            body,
                            json.orElse(JsonValue.EMPTY_JSON_OBJECT));
                }
            } else if (method.equals("POST") && GEMINI.matcher(path).matches()) {
                var m = GEMINI.matcher(path);
                m.matches();
                String query = ex.getRequestURI().getQuery();
                if (!geminiKeyOk(headers, query)) {
                    record(method, path, headers, body, 401, REFUSED, false);
                    sendJson(
                            ex,
                            401,
                            geminiError(401, "API key not valid. Please pass a valid API key."));
                } else if (m.group(2).equals("streamGenerateContent")) {
                    geminiTurn(ex, method, path, headers, body, m.group(1));
                } else if (m.group(2).equals("generateContent")) {
                    record(method, path, headers, body, 200, AUXILIARY, false);
                    sendJson(ex, 200, geminiResponse(List.of(geminiText("ok")), "STOP", true));
                } else if (m.group(2).equals("countTokens")) {
                    record(method, path, headers, body, 200, AUXILIARY, false);
                    sendJson(
                            ex,
                            200,
                            Json.createObjectBuilder()
                                    .add("totalTokens", Math.max(1, body.length() / 4))
                                    .build());
                } else {
                    record(method, path, headers, body, 404, REFUSED, false);
                    sendJson(ex, 404, geminiError(404, "no such method: " + m.group(2)));
                }
            } else if (method.equals("GET") && path.equals("/v1/models")) {
                record(method, path, headers, body, 200, AUXILIARY, false);
                sendJson(
                        ex,
                        200,
                        Json.createObjectBuilder()
                                .add("object", "list")
                                .add("data", JsonValue.EMPTY_JSON_ARRAY)
                                .add("has_more", false)
                                .build());
            } else if (method.equals("HEAD") || (method.equals("GET") && path.equals("/"))) {
                record(method, path, headers, body, 200, AUXILIARY, false);
                sendJson(ex, 200, JsonValue.EMPTY_JSON_OBJECT);
            } else {
                record(method, path, headers, body, 404, REFUSED, false);
                sendJson(ex, 404, openAiError("not_found_error", "no such endpoint: " + path));
            }
        } catch (IOException | RuntimeException e) {
            // The client went away mid-answer, or the answer could not be written: nothing to do.
        }
    }

    private synchronized Optional<Turn> nextTurn() {
        return Optional.ofNullable(script.pollFirst());
    }

    private synchronized void record(
            String method,
            String path,
            Map<String, String> headers,
            String body,
            int status,
            String kind,
            boolean exhausted) {
        requests.add(new RecordedRequest(method, path, headers, body, status, kind, exhausted));
    }

    // ---- Anthropic Messages ----

    private void anthropicTurn(
            HttpExchange ex,
            String method,
            String path,
            Map<String, String> headers,
            String body,
            JsonObject request)
            throws IOException {
        Optional<Turn> next = nextTurn();
        if (next.isEmpty()) {
            record(method, path, headers, body, 500, MODEL, true);
            sendJson(ex, 500, anthropicError("api_error", "the scripted model has no turn left"));
            return;
        }
        Turn turn = next.get();
        if (turn instanceof Turn.ApiError e) {
            record(method, path, headers, body, e.status(), MODEL, false);
            ex.getResponseHeaders().add("request-id", "req_scripted_" + ids.incrementAndGet());
            sendJson(ex, e.status(), anthropicError(e.type(), e.message()));
            return;
        }
        record(method, path, headers, body, 200, MODEL, false);
        String model = request.getString("model", "scripted-model");
        try (OutputStream out = startSse(ex)) {
            String messageId = "msg_scripted_" + ids.incrementAndGet();
            event(
                    out,
                    "message_start",
                    Json.createObjectBuilder()
                            .add("type", "message_start")
                            .add(
                                    "message",
                                    Json.createObjectBuilder()
                                            .add("id", messageId)
                                            .add("type", "message")
                                            .add("role", "assistant")
                                            .add("model", model)
                                            .add("content", JsonValue.EMPTY_JSON_ARRAY)
                                            .add("stop_reason", JsonValue.NULL)
                                            .add("stop_sequence", JsonValue.NULL)
                                            .add(
                                                    "usage",
                                                    Json.createObjectBuilder()
                                                            .add("input_tokens", 12)
                                                            .add("output_tokens", 1))));
            if (turn instanceof Turn.Disconnect) {
                return;
            }
            event(out, "ping", Json.createObjectBuilder().add("type", "ping"));
            String stopReason;
            if (turn instanceof Turn.Text t) {
                blockStart(out, Json.createObjectBuilder().add("type", "text").add("text", ""));
                for (String piece : halves(t.text())) {
                    blockDelta(
                            out,
                            Json.createObjectBuilder()
                                    .add("type", "text_delta")
                                    .add("text", piece));
                }
                stopReason = "end_turn";
            } else if (turn instanceof Turn.ToolSearch) {
                throw new IllegalStateException("a tool search is an OpenAI Responses turn only");
            } else {
                Turn.ToolCall call = (Turn.ToolCall) turn;
                blockStart(
                        out,
                        Json.createObjectBuilder()
                                .add("type", "tool_use")
                                .add("id", "toolu_scripted_" + ids.incrementAndGet())
                                .add("name", call.name())
                                .add("input", JsonValue.EMPTY_JSON_OBJECT));
                for (String piece : halves(call.input().toString())) {
                    blockDelta(
                            out,
                            Json.createObjectBuilder()
                                    .add("type", "input_json_delta")
                                    .add("partial_json", piece));
                }
                stopReason = "tool_use";
            }
            event(
                    out,
                    "content_block_stop",
                    Json.createObjectBuilder().add("type", "content_block_stop").add("index", 0));
            event(
                    out,
                    "message_delta",
                    Json.createObjectBuilder()
                            .add("type", "message_delta")
                            .add(
                                    "delta",
                                    Json.createObjectBuilder()
                                            .add("stop_reason", stopReason)
                                            .add("stop_sequence", JsonValue.NULL))
                            .add("usage", Json.createObjectBuilder().add("output_tokens", 7)));
            event(out, "message_stop", Json.createObjectBuilder().add("type", "message_stop"));
        }
    }

    private static void blockStart(OutputStream out, JsonObjectBuilder block) throws IOException {
        event(
                out,
                "content_block_start",
                Json.createObjectBuilder()
                        .add("type", "content_block_start")
                        .add("index", 0)
                        .add("content_block", block));
    }

    private static void blockDelta(OutputStream out, JsonObjectBuilder delta) throws IOException {
        event(
                out,
                "content_block_delta",
                Json.createObjectBuilder()
                        .add("type", "content_block_delta")
                        .add("index", 0)
                        .add("delta", delta));
    }

    private static JsonObject anthropicMessage(JsonObject request) {
        return Json.createObjectBuilder()
                .add("id", "msg_scripted_aux")
                .add("type", "message")
                .add("role", "assistant")
                .add("model", request.getString("model", "scripted-model"))
                .add(
                        "content",
                        Json.createArrayBuilder()
                                .add(
                                        Json.createObjectBuilder()
                                                .add("type", "text")
                                                .add("text", "ok")))
                .add("stop_reason", "end_turn")
                .add("stop_sequence", JsonValue.NULL)
                .add(
                        "usage",
                        Json.createObjectBuilder().add("input_tokens", 1).add("output_tokens", 1))
                .build();
    }

    private static JsonObject anthropicError(String type, String message) {
        return Json.createObjectBuilder()
                .add("type", "error")
                .add("error", Json.createObjectBuilder().add("type", type).add("message", message))
                .build();
    }

    private boolean anthropicKeyOk(Map<String, String> headers) {
        return expectedKey.equals(headers.get("x-api-key")) || bearerOk(headers);
    }

    // ---- OpenAI Responses ----

    private void openAiTurn(
            HttpExchange ex,
            String method,
            String path,
            Map<String, String> headers,
            String body,
            JsonObject request)
            throws IOException {
        Optional<Turn> next = nextTurn();
        if (next.isEmpty()) {
            record(method, path, headers, body, 500, MODEL, true);
            sendJson(ex, 500, openAiError("server_error", "the scripted model has no turn left"));
            return;
        }
        Turn turn = next.get();
        if (turn instanceof Turn.ApiError e) {
            record(method, path, headers, body, e.status(), MODEL, false);
            sendJson(ex, e.status(), openAiError(e.type(), e.message()));
            return;
        }
        record(method, path, headers, body, 200, MODEL, false);
        String model = request.getString("model", "scripted-model");
        String responseId = "resp_scripted_" + ids.incrementAndGet();
        AtomicInteger sequence = new AtomicInteger();
        try (OutputStream out = startSse(ex)) {
            openAiEvent(
                    out,
                    sequence,
                    "response.created",
                    Json.createObjectBuilder()
                            .add("response", response(responseId, model, "in_progress", null)));
            if (turn instanceof Turn.Disconnect) {
                return;
            }
            openAiEvent(
                    out,
                    sequence,
                    "response.in_progress",
                    Json.createObjectBuilder()
                            .add("response", response(responseId, model, "in_progress", null)));
            JsonObject item;
            if (turn instanceof Turn.Text t) {
                String itemId = "msg_scripted_" + ids.incrementAndGet();
                openAiEvent(
                        out,
                        sequence,
                        "response.output_item.added",
                        Json.createObjectBuilder()
                                .add("output_index", 0)
                                .add(
                                        "item",
                                        Json.createObjectBuilder()
                                                .add("type", "message")
                                                .add("id", itemId)
                                                .add("status", "in_progress")
                                                .add("role", "assistant")
                                                .add("content", JsonValue.EMPTY_JSON_ARRAY)));
                JsonObjectBuilder emptyPart =
                        Json.createObjectBuilder()
                                .add("type", "output_text")
                                .add("text", "")
                                .add("annotations", JsonValue.EMPTY_JSON_ARRAY);
                openAiEvent(
                        out,
                        sequence,
                        "response.content_part.added",
                        Json.createObjectBuilder()
                                .add("item_id", itemId)
                                .add("output_index", 0)
                                .add("content_index", 0)
                                .add("part", emptyPart));
                for (String piece : halves(t.text())) {
                    openAiEvent(
                            out,
                            sequence,
                            "response.output_text.delta",
                            Json.createObjectBuilder()
                                    .add("item_id", itemId)
                                    .add("output_index", 0)
                                    .add("content_index", 0)
                                    .add("delta", piece));
                }
                openAiEvent(
                        out,
                        sequence,
                        "response.output_text.done",
                        Json.createObjectBuilder()
                                .add("item_id", itemId)
                                .add("output_index", 0)
                                .add("content_index", 0)
                                .add("text", t.text()));
                JsonObject part =
                        Json.createObjectBuilder()
                                .add("type", "output_text")
                                .add("text", t.text())
                                .add("annotations", JsonValue.EMPTY_JSON_ARRAY)
                                .build();
                openAiEvent(
                        out,
                        sequence,
                        "response.content_part.done",
                        Json.createObjectBuilder()
                                .add("item_id", itemId)
                                .add("output_index", 0)
                                .add("content_index", 0)
                                .add("part", part));
                item =
                        Json.createObjectBuilder()
                                .add("type", "message")
                                .add("id", itemId)
                                .add("status", "completed")
                                .add("role", "assistant")
                                .add("content", Json.createArrayBuilder().add(part))
                                .build();
            } else if (turn instanceof Turn.ToolSearch search) {
                JsonObjectBuilder searching =
                        Json.createObjectBuilder()
                                .add("type", "tool_search_call")
                                .add("id", "tsc_scripted_" + ids.incrementAndGet())
                                .add("call_id", "call_scripted_" + ids.incrementAndGet())
                                .add("execution", "client")
                                .add(
                                        "arguments",
                                        Json.createObjectBuilder().add("query", search.query()));
                JsonObject started = searching.add("status", "in_progress").build();
                openAiEvent(
                        out,
                        sequence,
                        "response.output_item.added",
                        Json.createObjectBuilder().add("output_index", 0).add("item", started));
                item = Json.createObjectBuilder(started).add("status", "completed").build();
            } else {
                Turn.ToolCall call = (Turn.ToolCall) turn;
                String itemId = "fc_scripted_" + ids.incrementAndGet();
                String callId = "call_scripted_" + ids.incrementAndGet();
                String arguments = call.input().toString();
                openAiEvent(
                        out,
                        sequence,
                        "response.output_item.added",
                        Json.createObjectBuilder()
                                .add("output_index", 0)
                                .add(
                                        "item",
                                        named(call)
                                                .add("id", itemId)
                                                .add("call_id", callId)
                                                .add("arguments", "")
                                                .add("status", "in_progress")));
                for (String piece : halves(arguments)) {
                    openAiEvent(
                            out,
                            sequence,
                            "response.function_call_arguments.delta",
                            Json.createObjectBuilder()
                                    .add("item_id", itemId)
                                    .add("output_index", 0)
                                    .add("delta", piece));
                }
                openAiEvent(
                        out,
                        sequence,
                        "response.function_call_arguments.done",
                        Json.createObjectBuilder()
                                .add("item_id", itemId)
                                .add("output_index", 0)
                                .add("arguments", arguments));
                item =
                        named(call)
                                .add("id", itemId)
                                .add("call_id", callId)
                                .add("arguments", arguments)
                                .add("status", "completed")
                                .build();
            }
            openAiEvent(
                    out,
                    sequence,
                    "response.output_item.done",
                    Json.createObjectBuilder().add("output_index", 0).add("item", item));
            openAiEvent(
                    out,
                    sequence,
                    "response.completed",
                    Json.createObjectBuilder()
                            .add(
                                    "response",
                                    response(
                                            responseId,
                                            model,
                                            "completed",
                                            Json.createArrayBuilder().add(item))));
        }
    }

    /** A {@code function_call} item's type, name and namespace (when the call has one). */
    private static JsonObjectBuilder named(Turn.ToolCall call) {
        JsonObjectBuilder b =
                Json.createObjectBuilder().add("type", "function_call").add("name", call.name());
        call.namespace().ifPresent(n -> b.add("namespace", n));
        return b;
    }

    private static JsonObjectBuilder response(
            String id, String model, String status, JsonArrayBuilder output) {
        JsonObjectBuilder b =
                Json.createObjectBuilder()
                        .add("id", id)
                        .add("object", "response")
                        .add("created_at", 1_700_000_000L)
                        .add("status", status)
                        .add("model", model)
                        .add("output", output == null ? Json.createArrayBuilder() : output);
        if (status.equals("completed")) {
            b.add(
                    "usage",
                    Json.createObjectBuilder()
                            .add("input_tokens", 12)
                            .add(
                                    "input_tokens_details",
                                    Json.createObjectBuilder().add("cached_tokens", 0))
                            .add("output_tokens", 7)
                            .add(
                                    "output_tokens_details",
                                    Json.createObjectBuilder().add("reasoning_tokens", 0))
                            .add("total_tokens", 19));
        }
        return b;
    }

    private static void openAiEvent(
            OutputStream out, AtomicInteger sequence, String type, JsonObjectBuilder data)
            throws IOException {
        event(out, type, data.add("type", type).add("sequence_number", sequence.getAndIncrement()));
    }

    private static JsonObject openAiError(String type, String message) {
        return Json.createObjectBuilder()
                .add(
                        "error",
                        Json.createObjectBuilder()
                                .add("message", message)
                                .add("type", type)
                                .add("param", JsonValue.NULL)
                                .add("code", JsonValue.NULL))
                .build();
    }

    private boolean bearerOk(Map<String, String> headers) {
        return ("Bearer " + expectedKey).equals(headers.get("authorization"));
    }

    // ---- Gemini ----

    private void geminiTurn(
            HttpExchange ex,
            String method,
            String path,
            Map<String, String> headers,
            String body,
            String model)
            throws IOException {
        Optional<Turn> next = nextTurn();
        if (next.isEmpty()) {
            record(method, path, headers, body, 500, MODEL, true);
            sendJson(ex, 500, geminiError(500, "the scripted model has no turn left"));
            return;
        }
        Turn turn = next.get();
        if (turn instanceof Turn.ApiError e) {
            record(method, path, headers, body, e.status(), MODEL, false);
            sendJson(ex, e.status(), geminiError(e.status(), e.message()));
            return;
        }
        if (turn instanceof Turn.ToolSearch) {
            throw new IllegalStateException("a tool search is an OpenAI Responses turn only");
        }
        record(method, path, headers, body, 200, MODEL, false);
        try (OutputStream out = startSse(ex)) {
            if (turn instanceof Turn.Text t) {
                List<String> pieces = halves(t.text());
                for (int i = 0; i < pieces.size(); i++) {
                    boolean last = i == pieces.size() - 1;
                    geminiData(
                            out,
                            geminiResponse(
                                    List.of(geminiText(pieces.get(i))),
                                    last ? "STOP" : null,
                                    last));
                }
            } else if (turn instanceof Turn.Disconnect) {
                geminiData(out, geminiResponse(List.of(geminiText("")), null, false));
            } else {
                Turn.ToolCall call = (Turn.ToolCall) turn;
                geminiData(
                        out,
                        geminiResponse(
                                List.of(
                                        Json.createObjectBuilder()
                                                .add(
                                                        "functionCall",
                                                        Json.createObjectBuilder()
                                                                .add("name", call.name())
                                                                .add("args", call.input()))
                                                .build()),
                                "STOP",
                                true));
            }
        }
    }

    private static JsonObject geminiText(String text) {
        return Json.createObjectBuilder().add("text", text).build();
    }

    /** A GenerateContentResponse of {@code parts}, with a finish reason and usage when given. */
    private static JsonObject geminiResponse(
            List<JsonObject> parts, String finishReason, boolean usage) {
        JsonArrayBuilder p = Json.createArrayBuilder();
        parts.forEach(p::add);
        JsonObjectBuilder candidate =
                Json.createObjectBuilder()
                        .add(
                                "content",
                                Json.createObjectBuilder().add("role", "model").add("parts", p))
                        .add("index", 0);
        if (finishReason != null) {
            candidate.add("finishReason", finishReason);
        }
        JsonObjectBuilder b =
                Json.createObjectBuilder()
                        .add("candidates", Json.createArrayBuilder().add(candidate))
                        .add("modelVersion", "scripted-model");
        if (usage) {
            b.add(
                    "usageMetadata",
                    Json.createObjectBuilder()
                            .add("promptTokenCount", 12)
                            .add("candidatesTokenCount", 7)
                            .add("totalTokenCount", 19));
        }
        return b.build();
    }

    private static void geminiData(OutputStream out, JsonObject data) throws IOException {
        out.write(("data: " + data + "\r\n\r\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** Google's error body: {@code {"error":{"code","message","status"}}}. */
    private static JsonObject geminiError(int code, String message) {
        String status =
                switch (code) {
                    case 400 -> "INVALID_ARGUMENT";
                    case 401 -> "UNAUTHENTICATED";
                    case 403 -> "PERMISSION_DENIED";
                    case 404 -> "NOT_FOUND";
                    case 429 -> "RESOURCE_EXHAUSTED";
                    case 503 -> "UNAVAILABLE";
                    default -> "INTERNAL";
                };
        return Json.createObjectBuilder()
                .add(
                        "error",
                        Json.createObjectBuilder()
                                .add("code", code)
                                .add("message", message)
                                .add("status", status))
                .build();
    }

    private boolean geminiKeyOk(Map<String, String> headers, String query) {
        return expectedKey.equals(headers.get("x-goog-api-key"))
                || (query != null && List.of(query.split("&")).contains("key=" + expectedKey));
    }

    // ---- HTTP plumbing ----

    private static OutputStream startSse(HttpExchange ex) throws IOException {
        Headers h = ex.getResponseHeaders();
        h.add("Content-Type", "text/event-stream; charset=utf-8");
        h.add("Cache-Control", "no-cache");
        ex.sendResponseHeaders(200, 0);
        return ex.getResponseBody();
    }

    private static void event(OutputStream out, String name, JsonObjectBuilder data)
            throws IOException {
        out.write(
                ("event: " + name + "\ndata: " + data.build() + "\n\n")
                        .getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static void sendJson(HttpExchange ex, int status, JsonValue body) throws IOException {
        byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        if (ex.getRequestMethod().equals("HEAD")) {
            ex.sendResponseHeaders(status, -1);
            return;
        }
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** The text in two pieces (one when too short to split), so a stream has several deltas. */
    private static List<String> halves(String text) {
        int mid = text.length() / 2;
        if (mid == 0 || Character.isLowSurrogate(text.charAt(mid))) {
            return List.of(text);
        }
        return List.of(text.substring(0, mid), text.substring(mid));
    }

    private static String readBody(HttpExchange ex) throws IOException {
        try (InputStream in = ex.getRequestBody()) {
            byte[] raw = in.readAllBytes();
            String encoding = ex.getRequestHeaders().getFirst("Content-Encoding");
            if (encoding != null && encoding.equalsIgnoreCase("gzip")) {
                try (InputStream gz = new GZIPInputStream(new ByteArrayInputStream(raw))) {
                    raw = gz.readAllBytes();
                }
            }
            return new String(raw, StandardCharsets.UTF_8);
        }
    }

    private static Map<String, String> headers(Headers headers) {
        Map<String, String> flat = new TreeMap<>();
        headers.forEach(
                (name, values) ->
                        flat.put(name.toLowerCase(Locale.ROOT), String.join(", ", values)));
        return flat;
    }

    private static Optional<JsonObject> parseObject(String body) {
        if (body == null || !body.strip().startsWith("{")) {
            return Optional.empty();
        }
        try (JsonReader r = Json.createReader(new StringReader(body))) {
            return Optional.of(r.readObject());
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }
}
