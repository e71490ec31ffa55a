package dev.agentbox.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AdminPathTest {

    private static final String BASE = "/api/";

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/api/v1/admin",
                "/api/v1/admin/",
                "/api/v1/admin/reaper",
                "/api/v1/admin/reaper/sweep",
                "/api/v1/admin;x=1/reaper",
                "/api/v1;x/admin/reaper/sweep",
                "/api;a=b/v1;c=d/admin;e=f/reaper;g=h",
                "/api/v1//admin/reaper",
                "//api//v1///admin//reaper//",
                "/api/v1/./admin/reaper",
                "/api/./v1/admin/./reaper/.",
                "/api/v1/sandboxes/../admin/reaper",
                "/api/v1/x/y/../../admin/reaper",
                "/api/v1/%61dmin/reaper",
                "/api/v1/%41%44%4D%49%4E/reaper",
                "/api/v1%2Fadmin/reaper",
                "/api/v1%2fadmin%2freaper%2fsweep",
                "/api/v1/%2561dmin/reaper",
                "/api/v1/ADMIN/reaper",
                "/API/V1/Admin/Reaper",
                "/api/v1\\admin\\reaper",
                "/api/v1/admin%3Bx/reaper",
                "/api/v1/admin/journals/prune",
            })
    void everySpellingOfTheAdminAreaIsRecognised(String rawPath) {
        assertThat(AdminPath.isAdmin(rawPath, BASE)).as(rawPath).isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/api/v1/providers",
                "/api/v1/sandboxes",
                "/api/v1/administrator",
                "/api/v1/admins/reaper",
                "/api/v1/runs/v1%2Fadmin/events",
                "/api/v1/sandboxes/admin/files",
                "/api/v2/admin/reaper",
                "/other/v1/admin/reaper",
                "/api/v1/admin/../providers",
                "/api/v1/%zz/admin",
                "/",
                "",
            })
    void pathsOutsideTheAdminAreaAreNotAdmin(String rawPath) {
        assertThat(AdminPath.isAdmin(rawPath, BASE)).as(rawPath).isFalse();
    }

    @Test
    void normalizeDropsEmptyAndDotSegmentsStripsMatrixParametersAndLowerCases() {
        assertThat(AdminPath.normalize("//A;x=1/./b//c/../D%2Fe/")).isEqualTo("/a/b/d/e");
    }

    @Test
    void dotDotNeverClimbsAboveTheRoot() {
        assertThat(AdminPath.normalize("/../../api/v1/admin")).isEqualTo("/api/v1/admin");
    }

    @Test
    void plusAndMalformedEscapesStayLiteral() {
        assertThat(AdminPath.normalize("/a+b/%zz/%4")).isEqualTo("/a+b/%zz/%4");
    }

    @Test
    void aPercentBeforeNonAsciiBytesStaysLiteral() {
        // é is two bytes above 0x7f: neither is a hex digit, however a byte's sign is read
        assertThat(AdminPath.normalize("/%é1/%1é")).isEqualTo("/%é1/%1é");
    }

    @Test
    void anApplicationAtTheRootSeesTheAdminAreaDirectlyUnderIt() {
        assertThat(AdminPath.isAdmin("/v1//admin", "/")).isTrue();
        assertThat(AdminPath.isAdmin("/v1/providers", "/")).isFalse();
    }
}
