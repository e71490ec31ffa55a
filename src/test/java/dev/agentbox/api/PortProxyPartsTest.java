package dev.agentbox.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.problem.ProblemException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The port proxy's parts: hop-by-hop fields, the path it takes, ports, the body limit. */
class PortProxyPartsTest {

    private static InputStream bytes(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    @Test
    void hopByHopFieldsAndThoseNamedByConnectionStayOnTheirSide() {
        Set<String> named = ProxyHeaders.tokens("Keep-Alive, X-Private");
        assertThat(ProxyHeaders.hopByHop("Transfer-Encoding", Set.of())).isTrue();
        assertThat(ProxyHeaders.hopByHop("Upgrade", Set.of())).isTrue();
        assertThat(ProxyHeaders.hopByHop("Content-Length", Set.of())).isTrue();
        assertThat(ProxyHeaders.hopByHop("X-Private", named)).isTrue();
        assertThat(ProxyHeaders.hopByHop("Content-Type", named)).isFalse();
    }

    @Test
    void theProxyPathHasExactlyItsShape() {
        assertThat(PortProxyFilter.PROXY_PATH.matcher("/api/v1/sandboxes/k/ports/80/proxy"))
                .matches();
        assertThat(PortProxyFilter.PROXY_PATH.matcher("/api/v1/sandboxes/k/ports/80/proxy/a/b;c?d"))
                .matches();
        assertThat(PortProxyFilter.PROXY_PATH.matcher("/api/v1/sandboxes/k/ports/80").matches())
                .isFalse();
        assertThat(
                        PortProxyFilter.PROXY_PATH
                                .matcher("/api/v1/sandboxes/k/ports/80/proxyx")
                                .matches())
                .isFalse();
        assertThat(
                        PortProxyFilter.PROXY_PATH
                                .matcher("/api/v1/sandboxes/k;x/ports/80/proxy/")
                                .matches())
                .isFalse();
    }

    @Test
    void aRequestBodyOfUnknownLengthIsCountedAndCappedAtTheBodyLimit() throws IOException {
        assertThat(ProxiedBody.bounded(bytes("0123456789"), 10).readAllBytes())
                .asString(StandardCharsets.ISO_8859_1)
                .isEqualTo("0123456789");
        assertThatThrownBy(() -> ProxiedBody.bounded(bytes("0123456789A"), 10).readAllBytes())
                .isInstanceOf(PortFailures.BodyTooLarge.class);
    }

    @Test
    void aPortIsDigitsFrom1To65535() {
        assertThat(PortProxyFilter.port("8080")).isEqualTo(8080);
        assertThat(PortProxyFilter.port("65535")).isEqualTo(65535);
        for (String bad : new String[] {"0", "65536", "-1", "+80", "80a", "999999", ""}) {
            assertThatThrownBy(() -> PortProxyFilter.port(bad))
                    .as(bad)
                    .isInstanceOf(ProblemException.class);
        }
    }
}
