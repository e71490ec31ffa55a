package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An {@link OutsideHost} that records the credential headers it receives (Host, Authorization,
 * X-Api-Key, one JSON line per request) over HTTP on 80 and HTTPS on 443, with a certificate of a
 * test CA made for the test ({@link #tls}): Node.js in the host's network namespace only. What
 * brokered secrets reach a host is read back with {@link #seen}.
 */
public final class EchoHost implements AutoCloseable {

    private static final String SCRIPT =
            """
            const fs = require('fs'), https = require('https'), http = require('http');
            const [dir, log] = process.argv.slice(2);
            const handle = (req, res) => {
              fs.appendFileSync(log, JSON.stringify({host: req.headers.host,
                authorization: req.headers.authorization || null,
                apiKey: req.headers['x-api-key'] || null}) + '\\n');
              res.end('recorded\\n');
            };
            https.createServer({key: fs.readFileSync(dir + '/srv.key'),
                                cert: fs.readFileSync(dir + '/srv.pem')}, handle).listen(443);
            http.createServer(handle).listen(80);
            """;

    private final OutsideHost host;
    private final Process server;
    private final Path log;

    private EchoHost(OutsideHost host, Process server, Path log) {
        this.host = host;
        this.server = server;
        this.log = log;
    }

    /** Starts the host with the server certificate of {@code tlsDir} ({@link #tls}). */
    public static EchoHost start(Path tlsDir) throws IOException {
        OutsideHost h = OutsideHost.start("agentbox/sandbox:busybox", "sleep 100000");
        Path log = tlsDir.resolve("echo-" + h.container() + ".log");
        Path script = tlsDir.resolve("echo.js");
        Files.writeString(script, SCRIPT);
        Process p =
                h.startInNetwork(
                        List.of("node", script.toString(), tlsDir.toString(), log.toString()));
        return new EchoHost(h, p, log);
    }

    /**
     * Makes a test CA ({@code ca.pem}, {@code ca.key}) in {@code dir} and a server certificate it
     * signed ({@code srv.pem}, {@code srv.key}) for {@code names}.
     */
    public static void tls(Path dir, String... names) throws Exception {
        openssl(
                dir,
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "2",
                "-subj",
                "/CN=egress test CA",
                "-keyout",
                "ca.key",
                "-out",
                "ca.pem");
        openssl(
                dir,
                "req",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-subj",
                "/CN=" + names[0],
                "-keyout",
                "srv.key",
                "-out",
                "srv.csr");
        List<String> san = new ArrayList<>();
        for (String n : names) {
            san.add("DNS:" + n);
        }
        Files.writeString(dir.resolve("ext"), "subjectAltName=" + String.join(",", san) + "\n");
        openssl(
                dir,
                "x509",
                "-req",
                "-in",
                "srv.csr",
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-days",
                "2",
                "-extfile",
                "ext",
                "-out",
                "srv.pem");
    }

    private static void openssl(Path dir, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("openssl"));
        cmd.addAll(List.of(args));
        Process p =
                new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0).as(out).isTrue();
    }

    public String address() {
        return host.address();
    }

    /** The requests recorded so far, one JSON object each. */
    public List<String> seen() throws IOException {
        return Files.exists(log) ? Files.readAllLines(log) : List.of();
    }

    @Override
    public void close() {
        server.destroyForcibly();
        host.close();
    }
}
