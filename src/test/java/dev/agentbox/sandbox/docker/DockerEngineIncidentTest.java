package dev.agentbox.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.Test;

class DockerEngineIncidentTest {

    @Test
    void aTransportFailureIsProviderUnavailableWithAnIncidentIdAndWithoutTheTransportsText() {
        assertThatThrownBy(
                        () ->
                                DockerEngine.call(
                                        "container create",
                                        () -> {
                                            throw new UncheckedIOException(
                                                    new IOException(
                                                            "connect /var/run/docker.sock: response body {\"internal\":\"detail\"}"));
                                        }))
                .isInstanceOfSatisfying(
                        ProblemException.class,
                        e -> {
                            assertThat(e.status()).isEqualTo(503);
                            assertThat(e.code()).isEqualTo(ProblemCode.PROVIDER_UNAVAILABLE);
                            assertThat(e.detail())
                                    .matches(
                                            "Docker engine unavailable during container create \\(incident [0-9a-f-]{36}\\)")
                                    .doesNotContain("docker.sock")
                                    .doesNotContain("internal");
                        });
    }
}
