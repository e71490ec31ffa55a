package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import jakarta.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Attack: a non-admin tenant reaches the admin area by a spelling the old raw-path check did not
 * recognise (matrix parameters, {@code //}, {@code /./}, {@code ..}, percent-encoding, case,
 * trailing {@code /}) and runs a sweep, whose result lists every tenant's runs.
 *
 * <p>Every spelling is sent byte for byte over a socket ({@link RawHttp}). Proof that the admin
 * method never ran for them: {@code AdminResource} logs each sweep and prune with the calling
 * tenant, and the server's log has no such line for the attackers, while the admin's own canonical
 * calls do leave one (so the check can fail).
 */
class AdminPathsIT {

    private final Api api = Api.itServer();
    private final RawHttp raw = new RawHttp(api.baseUrl());

    private static final List<String> GET_SPELLINGS =
            List.of(
                    "/api/v1/admin/reaper",
                    "/api/v1/admin;x=1/reaper",
                    "/api/v1;x/admin/reaper",
                    "/api/v1/admin/reaper;x=1",
                    "/api;x=1/v1/admin/reaper",
                    "/api/v1//admin/reaper",
                    "/api/v1/admin//reaper",
                    "/api/v1/./admin/reaper",
                    "/api/v1/sandboxes/../admin/reaper",
                    "/api/v1/%61dmin/reaper",
                    "/api/v1/%61%64%6d%69%6e/reaper",
                    "/api/v1%2Fadmin/reaper",
                    "/api/v1/admin%2Freaper",
                    "/api/v1/ADMIN/reaper",
                    "/api/v1/Admin/Reaper",
                    "/api/v1/admin/reaper/",
                    "/api/v1/admin",
                    "/api/v1/admin/");

    private static final List<String> POST_SPELLINGS =
            List.of(
                    "/api/v1/admin/reaper/sweep",
                    "/api/v1;x/admin/reaper/sweep",
                    "/api/v1/admin;x=1/reaper/sweep",
                    "/api/v1/admin/reaper;a=b/sweep;c=d",
                    "/api/v1//admin//reaper//sweep",
                    "/api/v1/./admin/./reaper/./sweep",
                    "/api/v1/runs/../admin/reaper/sweep",
                    "/api/v1/%61dmin/reaper/sweep",
                    "/api/v1%2Fadmin%2Freaper%2Fsweep",
                    "/api/v1/ADMIN/REAPER/SWEEP",
                    "/api/v1/admin/reaper/sweep/",
                    "/api/v1/admin/journals/prune",
                    "/api/v1;x/admin/journals/prune",
                    "/api/v1/admin;x/journals/prune/");

    /**
     * On a loaded machine the server may answer before the application has started: wait for the
     * API.
     */
    @BeforeAll
    static void apiIsServed() {
        Api api = Api.itServer();
        await().atMost(Duration.ofMinutes(3))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> api.get("/api/v1/providers", Api.TENANT_A).statusCode() == 200);
    }

    @Test
    void everySpellingOfAnAdminPathIsForbiddenForAnotherTenantAndNeverRunsTheSweep()
            throws Exception {
        for (String target : GET_SPELLINGS) {
            assertForbidden("GET", target, Api.TENANT_B);
        }
        for (String target : POST_SPELLINGS) {
            assertForbidden("POST", target, Api.TENANT_B);
        }
        assertForbidden("POST", "/api/v1;x/admin/reaper/sweep", Api.TENANT_A);

        // Control: the admin's canonical sweep is logged, so a sweep run for tenant-b would be too.
        assertThat(raw.send("POST", "/api/v1/admin/reaper/sweep", Api.ADMIN).status())
                .isEqualTo(200);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> log().contains("reaper sweep requested by tenant \"ops\""));
        assertThat(log())
                .doesNotContain("requested by tenant \"tenant-b\"")
                .doesNotContain("requested by tenant \"tenant-a\"");
    }

    @Test
    void theAdminTenantStillReachesTheCanonicalPaths() {
        RawHttp.Response status = raw.send("GET", "/api/v1/admin/reaper", Api.ADMIN);
        assertThat(status.status()).as(status.body()).isEqualTo(200);
        assertThat(Api.parse(status.body()).containsKey("enabled")).isTrue();

        RawHttp.Response sweep = raw.send("POST", "/api/v1/admin/reaper/sweep", Api.ADMIN);
        assertThat(sweep.status()).as(sweep.body()).isEqualTo(200);
        assertThat(Api.parse(sweep.body()).getJsonObject("outcomes")).hasSize(8);

        RawHttp.Response prune = raw.send("POST", "/api/v1/admin/journals/prune", Api.ADMIN);
        assertThat(prune.status()).as(prune.body()).isEqualTo(200);
        assertThat(Api.parse(prune.body()).containsKey("deleted")).isTrue();
    }

    @Test
    void anUnauthenticatedCallerIsUnauthorizedOnEverySpellingLearningNothing() {
        for (String target :
                List.of(
                        "/api/v1;x/admin/reaper/sweep",
                        "/api/v1/%61dmin/reaper",
                        "/api/v1/ADMIN/reaper")) {
            RawHttp.Response r = raw.send("POST", target, null);
            assertThat(r.status()).as(target).isEqualTo(401);
            assertThat(Api.parse(r.body()).getString("code")).isEqualTo("unauthorized");
        }
    }

    private void assertForbidden(String method, String target, String token) {
        RawHttp.Response r = raw.send(method, target, token);
        assertThat(r.status()).as("%s %s -> %s", method, target, r.body()).isEqualTo(403);
        assertThat(r.contentType())
                .as("%s %s", method, target)
                .startsWith("application/problem+json");
        JsonObject problem = Api.parse(r.body());
        assertThat(problem.getString("code")).isEqualTo("forbidden");
        assertThat(problem.getInt("status")).isEqualTo(403);
        assertThat(problem.getString("type")).isEqualTo("https://agentbox.dev/problems/forbidden");
        assertThat(r.body()).doesNotContain("outcomes").doesNotContain("runId");
    }

    private static String log() throws Exception {
        Path dir =
                Path.of(
                        System.getProperty(
                                "agentbox.it.server.dir",
                                "target/liberty/wlp/usr/servers/agentbox"));
        return Files.readString(dir.resolve("logs/messages.log"));
    }
}
