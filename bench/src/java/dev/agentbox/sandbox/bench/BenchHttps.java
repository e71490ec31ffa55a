package dev.agentbox.sandbox.bench;

import dev.agentbox.it.OutsideHost;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The HTTPS side of {@link EgressBench}'s outside host: Node.js in the host's network namespace
 * serving on 443 with the test TLS material (src/test/resources/egress-test-tls) {@code /1m.bin} (1
 * MiB of random bytes, from memory) and {@code /small} (2 bytes).
 */
final class BenchHttps {

    private static final String SCRIPT =
            """
            const fs = require('fs'), https = require('https'), crypto = require('crypto');
            const dir = process.argv[2];
            const big = crypto.randomBytes(1024 * 1024), small = Buffer.from('ok');
            https.createServer({cert: fs.readFileSync(dir + '/server.pem'),
                                key: fs.readFileSync(dir + '/server.key')}, (req, res) => {
              const body = req.url === '/1m.bin' ? big : req.url === '/small' ? small : null;
              if (!body) { res.writeHead(404); res.end(); return; }
              res.writeHead(200, {'Content-Length': body.length,
                                  'Content-Type': 'application/octet-stream'});
              res.end(body);
            }).listen(443, '0.0.0.0', () => console.log('listening'));
            """;

    private BenchHttps() {}

    /** Starts the server and returns once it listens; the caller stops the process. */
    static Process start(OutsideHost host, Path tlsDir) throws IOException {
        Path script = Files.createTempFile("bench-https", ".js");
        Files.writeString(script, SCRIPT);
        script.toFile().deleteOnExit();
        Process p = host.startInNetwork(List.of("node", script.toString(), tlsDir.toString()));
        InputStream in = p.getInputStream();
        StringBuilder seen = new StringBuilder();
        int b;
        while (!seen.toString().contains("listening") && (b = in.read()) >= 0) {
            seen.append((char) b);
        }
        if (!seen.toString().contains("listening")) {
            p.destroyForcibly();
            throw new IllegalStateException("the bench's HTTPS server did not start: " + seen);
        }
        // keep reading so a chatty server never blocks on a full pipe
        Thread drain =
                new Thread(
                        () -> {
                            try {
                                in.transferTo(java.io.OutputStream.nullOutputStream());
                            } catch (IOException e) {
                                // the process ended
                            }
                        },
                        "bench-https-drain");
        drain.setDaemon(true);
        drain.start();
        return p;
    }
}
