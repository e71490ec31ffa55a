package dev.agentbox.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.problem.ProblemException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The port proxy's parsing: response heads, hop-by-hop fields, the path it takes, ports. */
class PortProxyPartsTest {

    private static InputStream bytes(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    @Test
    void aResponseHeadIsReadUpToItsEmptyLineAndLeavesTheRestInTheStream() throws IOException {
        InputStream in =
                bytes(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-A:  spaced \r\n"
                                + "Connection: close, X-Private\r\n\r\nbody");
        HttpHead head = HttpHead.read(in);
        assertThat(head.status()).isEqualTo(200);
        assertThat(head.first("content-type")).hasValue("text/plain");
        assertThat(head.first("X-A")).hasValue("spaced");
        assertThat(head.connectionTokens()).containsExactlyInAnyOrder("close", "x-private");
        assertThat(new String(in.readAllBytes(), StandardCharsets.ISO_8859_1)).isEqualTo("body");
    }

    @Test
    void aBareLineFeedEndsALineToo() throws IOException {
        HttpHead head = HttpHead.read(bytes("HTTP/1.0 404 Not Found\nA: b\n\n"));
        assertThat(head.status()).isEqualTo(404);
        assertThat(head.first("a")).hasValue("b");
    }

    @Test
    void whatIsNotAnHttpResponseHeadIsRefused() {
        assertThatThrownBy(() -> HttpHead.read(bytes("SSH-2.0-OpenSSH\r\n\r\n")))
                .isInstanceOf(IOException.class);
        assertThatThrownBy(() -> HttpHead.read(bytes("HTTP/1.1 2x0 OK\r\n\r\n")))
                .isInstanceOf(IOException.class);
        assertThatThrownBy(() -> HttpHead.read(bytes("HTTP/1.1 200 OK\r\n folded\r\n\r\n")))
                .isInstanceOf(IOException.class);
        assertThatThrownBy(() -> HttpHead.read(bytes("HTTP/1.1 200 OK\r\nA: b\r\n")))
                .isInstanceOf(EOFException.class);
        assertThatThrownBy(
                        () ->
                                HttpHead.read(
                                        bytes(
                                                "HTTP/1.1 200 OK\r\nA: "
                                                        + "x".repeat(HttpHead.MAX_HEAD_BYTES)
                                                        + "\r\n\r\n")))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("over");
    }

    @Test
    void hopByHopFieldsAndThoseNamedByConnectionStayOnTheirSide() {
        Set<String> named = HttpHead.tokens("Keep-Alive, X-Private");
        assertThat(HttpHead.hopByHop("Transfer-Encoding", Set.of())).isTrue();
        assertThat(HttpHead.hopByHop("Upgrade", Set.of())).isTrue();
        assertThat(HttpHead.hopByHop("Content-Length", Set.of())).isTrue();
        assertThat(HttpHead.hopByHop("X-Private", named)).isTrue();
        assertThat(HttpHead.hopByHop("Content-Type", named)).isFalse();
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
    void aChunkedResponseBodyIsDecodedWithoutExtensionsOrTrailers() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        InputStream in = bytes("5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\nnext");
        PortProxy.copyDechunked(in, out);
        assertThat(out.toString(StandardCharsets.ISO_8859_1)).isEqualTo("hello, world");
        assertThat(new String(in.readAllBytes(), StandardCharsets.ISO_8859_1)).isEqualTo("next");
        assertThatThrownBy(() -> PortProxy.copyDechunked(bytes("zz\r\n"), out))
                .isInstanceOf(IOException.class);
        assertThatThrownBy(() -> PortProxy.copyDechunked(bytes("5\r\nhel"), out))
                .isInstanceOf(EOFException.class);
    }

    @Test
    void aRequestBodyOfUnknownLengthIsReChunkedAndCappedAtTheBodyLimit() throws IOException {
        PortProxy proxy = new PortProxy(new PortProxy.Settings(1000, 1000, 10));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        proxy.copyChunked(bytes("0123456789"), out);
        ByteArrayOutputStream decoded = new ByteArrayOutputStream();
        PortProxy.copyDechunked(new ByteArrayInputStream(out.toByteArray()), decoded);
        assertThat(decoded.toString(StandardCharsets.ISO_8859_1)).isEqualTo("0123456789");
        assertThatThrownBy(
                        () -> proxy.copyChunked(bytes("0123456789A"), new ByteArrayOutputStream()))
                .isInstanceOf(ProblemException.class)
                .hasMessageContaining("agentbox.http.max-body-bytes");
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
