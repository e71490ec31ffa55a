package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.net.http.HttpResponse;

/** Asserts that a response is an agentbox problem document. */
public final class ProblemAssert {

    private ProblemAssert() {}

    public static JsonObject assertProblem(HttpResponse<String> response, int status, String code) {
        assertThat(response.statusCode()).as("status of %s", response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type"))
                .get()
                .asString()
                .startsWith("application/problem+json");
        JsonObject problem = Api.object(response);
        assertThat(problem.getInt("status")).isEqualTo(status);
        assertThat(problem.getString("code")).isEqualTo(code);
        assertThat(problem.getString("type")).isEqualTo("https://agentbox.dev/problems/" + code);
        assertThat(problem.getString("title")).isNotBlank();
        assertThat(problem.getString("detail")).isNotBlank();
        assertThat(response.body()).doesNotContain("Exception").doesNotContain("\tat ");
        return problem;
    }
}
