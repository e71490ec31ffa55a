package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** The IT server runs with tokens for tenant-a, tenant-b and the admin tenant "ops". */
class AuthIT {

    private final Api api = Api.itServer();

    @Test
    void missingTokenIsUnauthorizedWithBearerChallenge() {
        HttpResponse<String> response = api.send(api.request("/api/v1/providers").GET());
        assertProblem(response, 401, "unauthorized");
        assertThat(response.headers().firstValue("WWW-Authenticate"))
                .get()
                .asString()
                .startsWith("Bearer");
    }

    @Test
    void wrongTokenIsUnauthorized() {
        assertProblem(api.get("/api/v1/providers", "token-a-but-wrong"), 401, "unauthorized");
    }

    @Test
    void unauthenticatedCallerLearnsNothingAboutPaths() {
        assertProblem(api.send(api.request("/api/v1/no-such-thing").GET()), 401, "unauthorized");
    }

    @Test
    void validTokenIsAccepted() {
        assertThat(api.get("/api/v1/providers", Api.TENANT_A).statusCode()).isEqualTo(200);
        assertThat(api.get("/api/v1/providers", Api.TENANT_B).statusCode()).isEqualTo(200);
    }

    @Test
    void adminPathsNeedTheAdminTenant() {
        assertProblem(api.get("/api/v1/admin/reaper", Api.TENANT_A), 403, "forbidden");
        assertThat(api.get("/api/v1/admin/reaper", Api.ADMIN).statusCode()).isNotIn(401, 403);
    }

    @Test
    void healthReportsAuthEnabled() {
        HttpResponse<String> ready = api.send(api.request("/health/ready").GET());
        assertThat(ready.body()).contains("\"auth\":\"enabled\"");
    }
}
