package dev.agentbox.testing.model;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The scripted model server on loopback, spoken to as the two CLIs speak to it. */
class ScriptedModelServerTest {

    private final ScriptedModelServer server = ScriptedModelServer.start("k-1");
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void close() {
        server.close();
    }

    private HttpResponse<String> post(String path, String body, String... headers)
            throws Exception {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(URI.create(server.anthropicBaseUrl() + path))
                        .POST(HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The data of every event of an SSE body, in order. */
    private static List<JsonObject> events(String sse) {
        return sse.lines()
                .filter(l -> l.startsWith("data: "))
                .map(l -> Json.createReader(new StringReader(l.substring(6))).readObject())
                .toList();
    }

    @Test
    void anthropicTurnsStreamTextThenAToolUseThenAnErrorInScriptOrder() throws Exception {
        server.enqueue(Turn.text("Hello there"), Turn.claudeBash("ls /"), Turn.overloaded());
        String body = "{\"model\":\"m\",\"stream\":true,\"messages\":[]}";

        HttpResponse<String> text = post("/v1/messages?beta=true", body, "x-api-key", "k-1");
        assertThat(text.statusCode()).isEqualTo(200);
        assertThat(text.headers().firstValue("content-type"))
                .hasValueSatisfying(v -> assertThat(v).startsWith("text/event-stream"));
        List<JsonObject> e = events(text.body());
        assertThat(e.stream().map(o -> o.getString("type")))
                .containsExactly(
                        "message_start",
                        "ping",
                        "content_block_start",
                        "content_block_delta",
                        "content_block_delta",
                        "content_block_stop",
                        "message_delta",
                        "message_stop");
        assertThat(
                        e.stream()
                                .filter(o -> o.getString("type").equals("content_block_delta"))
                                .map(o -> o.getJsonObject("delta").getString("text")))
                .containsExactly("Hello", " there");

        List<JsonObject> tool =
                events(post("/v1/messages", body, "Authorization", "Bearer k-1").body());
        assertThat(tool.get(2).getJsonObject("content_block").getString("name")).isEqualTo("Bash");
        String json =
                tool.stream()
                        .filter(o -> o.getString("type").equals("content_block_delta"))
                        .map(o -> o.getJsonObject("delta").getString("partial_json"))
                        .reduce("", String::concat);
        assertThat(json).isEqualTo("{\"command\":\"ls /\",\"description\":\"Run a command\"}");
        assertThat(tool.get(6).getJsonObject("delta").getString("stop_reason"))
                .isEqualTo("tool_use");

        HttpResponse<String> error = post("/v1/messages", body, "x-api-key", "k-1");
        assertThat(error.statusCode()).isEqualTo(529);
        assertThat(error.body()).contains("\"overloaded_error\"");

        HttpResponse<String> exhausted = post("/v1/messages", body, "x-api-key", "k-1");
        assertThat(exhausted.statusCode()).isEqualTo(500);
        assertThat(server.modelRequests()).hasSize(4);
        assertThat(server.modelRequests().get(3).exhausted()).isTrue();
        assertThat(server.modelRequests().get(0).path()).isEqualTo("/v1/messages");
        assertThat(server.modelRequests().get(0).header("X-Api-Key")).contains("k-1");
        assertThat(server.modelRequests().get(0).json().orElseThrow().getString("model"))
                .isEqualTo("m");
    }

    @Test
    void aWrongKeyIsRefusedInEachApisFormatAndTakesNoTurn() throws Exception {
        server.enqueue(Turn.text("kept"));
        String body = "{\"model\":\"m\",\"stream\":true}";
        HttpResponse<String> anthropic = post("/v1/messages", body, "x-api-key", "wrong");
        assertThat(anthropic.statusCode()).isEqualTo(401);
        assertThat(anthropic.body()).contains("authentication_error");
        HttpResponse<String> openAi = post("/v1/responses", body);
        assertThat(openAi.statusCode()).isEqualTo(401);
        assertThat(openAi.body()).contains("\"error\"");
        assertThat(server.remainingTurns()).isEqualTo(1);
        assertThat(server.requests())
                .extracting(ScriptedModelServer.RecordedRequest::kind)
                .containsExactly(ScriptedModelServer.REFUSED, ScriptedModelServer.REFUSED);
    }

    @Test
    void openAiTurnsStreamAFunctionCallTextAndACutStream() throws Exception {
        server.enqueue(
                Turn.codexExec("echo hi"),
                Turn.text("done"),
                Turn.disconnect(),
                Turn.serverError("boom"));
        String body = "{\"model\":\"gpt\",\"stream\":true,\"input\":[]}";
        String[] auth = {"Authorization", "Bearer k-1"};

        List<JsonObject> call = events(post("/v1/responses", body, auth).body());
        assertThat(call.stream().map(o -> o.getString("type")))
                .startsWith(
                        "response.created", "response.in_progress", "response.output_item.added")
                .endsWith("response.output_item.done", "response.completed");
        JsonObject item = call.get(call.size() - 2).getJsonObject("item");
        assertThat(item.getString("type")).isEqualTo("function_call");
        assertThat(item.getString("name")).isEqualTo("exec_command");
        assertThat(item.getString("arguments")).isEqualTo("{\"cmd\":\"echo hi\"}");
        assertThat(call.stream().map(o -> o.getInt("sequence_number")))
                .containsExactlyElementsOf(
                        java.util.stream.IntStream.range(0, call.size()).boxed().toList());

        List<JsonObject> text = events(post("/v1/responses", body, auth).body());
        JsonObject completed = text.get(text.size() - 1).getJsonObject("response");
        assertThat(completed.getString("status")).isEqualTo("completed");
        assertThat(completed.getJsonArray("output").getJsonObject(0).getString("type"))
                .isEqualTo("message");
        assertThat(completed.getJsonObject("usage").getInt("total_tokens")).isEqualTo(19);

        assertThat(events(post("/v1/responses", body, auth).body()))
                .extracting(o -> o.getString("type"))
                .containsExactly("response.created");

        HttpResponse<String> error = post("/v1/responses", body, auth);
        assertThat(error.statusCode()).isEqualTo(500);
        assertThat(error.body()).contains("\"message\":\"boom\"");
    }

    @Test
    void auxiliaryRequestsAreAnsweredHarmlesslyAndRecordedWithoutTakingATurn() throws Exception {
        server.enqueue(Turn.text("kept"));
        assertThat(
                        post("/v1/messages/count_tokens", "{\"messages\":[]}", "x-api-key", "k-1")
                                .body())
                .contains("input_tokens");
        HttpResponse<String> plain =
                post("/v1/messages", "{\"model\":\"m\",\"max_tokens\":1}", "x-api-key", "k-1");
        assertThat(plain.statusCode()).isEqualTo(200);
        assertThat(plain.body()).contains("\"text\":\"ok\"");
        HttpResponse<String> models =
                http.send(
                        HttpRequest.newBuilder(URI.create(server.openAiBaseUrl() + "/models"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(models.statusCode()).isEqualTo(200);
        assertThat(post("/v1/other", "{}").statusCode()).isEqualTo(404);
        assertThat(server.remainingTurns()).isEqualTo(1);
        assertThat(server.requests())
                .extracting(ScriptedModelServer.RecordedRequest::path)
                .containsExactly(
                        "/v1/messages/count_tokens", "/v1/messages", "/v1/models", "/v1/other");
        assertThat(server.modelRequests()).isEmpty();
        assertThat(server.anthropicBaseUrl()).startsWith("http://127.0.0.1:");
    }

    @Test
    void geminiTurnsStreamTextAFunctionCallAndAnErrorAndCheckTheKey() throws Exception {
        server.enqueue(Turn.text("Hello there"), Turn.geminiShell("ls /"), Turn.badRequest("bad"));
        String path = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse";
        String body = "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}]}";
        String[] key = {"x-goog-api-key", "k-1"};

        HttpResponse<String> refused = post(path, body, "x-goog-api-key", "wrong");
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(refused.body()).contains("\"status\":\"UNAUTHENTICATED\"");
        assertThat(server.remainingTurns()).isEqualTo(3);

        HttpResponse<String> text = post(path, body, key);
        assertThat(text.statusCode()).isEqualTo(200);
        assertThat(text.headers().firstValue("content-type"))
                .hasValueSatisfying(v -> assertThat(v).startsWith("text/event-stream"));
        List<JsonObject> chunks = events(text.body());
        StringBuilder said = new StringBuilder();
        chunks.forEach(
                c ->
                        said.append(
                                c.getJsonArray("candidates")
                                        .getJsonObject(0)
                                        .getJsonObject("content")
                                        .getJsonArray("parts")
                                        .getJsonObject(0)
                                        .getString("text")));
        assertThat(said.toString()).isEqualTo("Hello there");
        JsonObject last = chunks.get(chunks.size() - 1);
        assertThat(last.getJsonArray("candidates").getJsonObject(0).getString("finishReason"))
                .isEqualTo("STOP");
        assertThat(last.getJsonObject("usageMetadata").getInt("totalTokenCount")).isEqualTo(19);

        JsonObject call =
                events(post(path, body, key).body())
                        .get(0)
                        .getJsonArray("candidates")
                        .getJsonObject(0)
                        .getJsonObject("content")
                        .getJsonArray("parts")
                        .getJsonObject(0)
                        .getJsonObject("functionCall");
        assertThat(call.getString("name")).isEqualTo("run_shell_command");
        assertThat(call.getJsonObject("args").getString("command")).isEqualTo("ls /");

        HttpResponse<String> error = post(path, body, key);
        assertThat(error.statusCode()).isEqualTo(400);
        assertThat(error.body()).contains("\"status\":\"INVALID_ARGUMENT\"", "\"message\":\"bad\"");

        assertThat(server.modelRequests())
                .extracting(ScriptedModelServer.RecordedRequest::path)
                .containsOnly("/v1beta/models/gemini-2.5-flash:streamGenerateContent");
    }

    @Test
    void geminisOtherMethodsAreAnsweredWithoutTakingATurn() throws Exception {
        server.enqueue(Turn.text("kept"));
        HttpResponse<String> plain =
                post(
                        "/v1beta/models/gemini-2.5-flash:generateContent",
                        "{\"contents\":[]}",
                        "x-goog-api-key",
                        "k-1");
        assertThat(plain.statusCode()).isEqualTo(200);
        assertThat(plain.body()).contains("\"text\":\"ok\"", "\"finishReason\":\"STOP\"");
        HttpResponse<String> count =
                post(
                        "/v1beta/models/gemini-2.5-flash:countTokens",
                        "{\"contents\":[]}",
                        "x-goog-api-key",
                        "k-1");
        assertThat(count.body()).contains("totalTokens");
        assertThat(
                        post(
                                        "/v1beta/models/gemini-2.5-flash:embedContent",
                                        "{}",
                                        "x-goog-api-key",
                                        "k-1")
                                .statusCode())
                .isEqualTo(404);
        assertThat(server.remainingTurns()).isEqualTo(1);
        assertThat(server.modelRequests()).isEmpty();
    }
}
