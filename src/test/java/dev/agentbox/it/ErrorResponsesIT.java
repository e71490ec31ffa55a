package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

class ErrorResponsesIT {

    private final Api api = Api.itServer();

    @Test
    void unknownApiPathIsProblemNotFound() {
        assertProblem(api.get("/api/v1/no-such-thing", Api.TENANT_A), 404, "not-found");
    }

    @Test
    void unknownPathOutsideTheApiIsProblemNotFoundNotAnHtmlPage() {
        HttpResponse<String> response = api.get("/no/such/page", Api.TENANT_A);
        assertProblem(response, 404, "not-found");
        assertThat(response.body()).doesNotContain("<html");
    }

    @Test
    void wrongMethodIsProblemMethodNotAllowedWithAllowHeader() {
        HttpResponse<String> response =
                api.send(api.request("/api/v1/providers", Api.TENANT_A).DELETE());
        assertProblem(response, 405, "method-not-allowed");
        assertThat(response.headers().firstValue("Allow")).get().asString().contains("GET");
    }

    @Test
    void bodyOverTheConfiguredLimitIsProblemPayloadTooLarge() {
        byte[] body = new byte[16 * 1024 * 1024 + 1];
        HttpResponse<String> response =
                api.send(
                        api.request("/api/v1/providers", Api.TENANT_A)
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofByteArray(body)));
        assertProblem(response, 413, "payload-too-large");
    }
}
