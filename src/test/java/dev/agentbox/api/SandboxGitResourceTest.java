package dev.agentbox.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.spi.GitStatus;
import jakarta.json.JsonObject;
import jakarta.json.stream.JsonParsingException;
import jakarta.ws.rs.core.MediaType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The git endpoints' optional body and their status shape. */
class SandboxGitResourceTest {

    private static Optional<String> dirOf(MediaType type, String body) {
        return SandboxGitResource.dirOf(
                type, body == null ? null : body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void noBodyOrABlankOneIsTheWorkspaceRootWhateverItsContentType() {
        assertThat(dirOf(null, null)).isEmpty();
        assertThat(dirOf(null, "")).isEmpty();
        assertThat(dirOf(MediaType.TEXT_PLAIN_TYPE, " \n")).isEmpty();
        assertThat(dirOf(MediaType.APPLICATION_JSON_TYPE, "{}")).isEmpty();
        assertThat(dirOf(MediaType.APPLICATION_JSON_TYPE, "{\"dir\":null}")).isEmpty();
    }

    @Test
    void aDirIsANonBlankStringInAJsonObjectWithNothingElse() {
        assertThat(dirOf(MediaType.APPLICATION_JSON_TYPE, "{\"dir\":\"repo/sub\"}"))
                .contains("repo/sub");
        assertField("{\"dir\":5}", "dir");
        assertField("{\"dir\":\"  \"}", "dir");
        assertField("{\"dir\":\"a\\u0000b\"}", "dir");
        assertField("{\"remote\":\"origin\"}", "remote");
        assertField("[\"dir\"]", "body");
        assertThatThrownBy(() -> dirOf(MediaType.APPLICATION_JSON_TYPE, "{\"dir\":"))
                .isInstanceOf(JsonParsingException.class);
    }

    @Test
    void aBodyThatIsNotJsonIsAnUnsupportedMediaType() {
        assertThatThrownBy(() -> dirOf(MediaType.TEXT_PLAIN_TYPE, "{\"dir\":\"x\"}"))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> assertThat(e.code()).isEqualTo(ProblemCode.UNSUPPORTED_MEDIA_TYPE));
        assertThatThrownBy(() -> dirOf(null, "{\"dir\":\"x\"}"))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> assertThat(e.code()).isEqualTo(ProblemCode.UNSUPPORTED_MEDIA_TYPE));
    }

    @Test
    void theStatusShapeHasEveryMemberWithNullWhereGitHasNothing() {
        JsonObject fresh =
                SandboxGitResource.view(
                        new GitStatus(
                                Optional.empty(),
                                Optional.empty(),
                                Optional.empty(),
                                0,
                                0,
                                List.of(
                                        new GitStatus.Entry(
                                                "b", "renamed", "R.", true, Optional.of("a")),
                                        new GitStatus.Entry(
                                                "n", "untracked", "??", false, Optional.empty()))));

        assertThat(fresh.toString())
                .isEqualTo(
                        "{\"branch\":null,\"commit\":null,\"upstream\":null,\"ahead\":0,\"behind\":0,"
                                + "\"clean\":false,\"entries\":["
                                + "{\"path\":\"b\",\"status\":\"renamed\",\"code\":\"R.\",\"staged\":true,\"from\":\"a\"},"
                                + "{\"path\":\"n\",\"status\":\"untracked\",\"code\":\"??\",\"staged\":false}]}");
    }

    private static void assertField(String body, String field) {
        assertThatThrownBy(() -> dirOf(MediaType.APPLICATION_JSON_TYPE, body))
                .as(body)
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> {
                            assertThat(e.code()).isEqualTo(ProblemCode.INVALID_REQUEST);
                            assertThat(e.extensions()).containsEntry("field", field);
                        });
    }
}
