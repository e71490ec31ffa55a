package dev.agentbox.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The long-lived Node.js process of {@code bench/exec-channel-node/child.js}: the dockerode
 * reference path. One command line in, one answer line out; the answer carries the elapsed time the
 * child measured itself, so neither the pipe nor this JVM's scheduling is counted in it.
 *
 * <p>Invariant: at most one command is outstanding (callers are sequential), so an answer always
 * belongs to the last command sent.
 */
final class DockerodeChild implements AutoCloseable {

    private final Process process;
    private final Writer in;
    private final BufferedReader out;

    private DockerodeChild(Process process) {
        this.process = process;
        this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        this.out =
                new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /** Starts {@code node child.js} in {@code dir} (its node_modules installed by the script). */
    static DockerodeChild start(Path dir) throws IOException {
        Process p =
                new ProcessBuilder("node", "child.js")
                        .directory(dir.toFile())
                        .redirectError(ProcessBuilder.Redirect.INHERIT)
                        .start();
        return new DockerodeChild(p);
    }

    /** Sends one command (words separated by single spaces) and returns the child's elapsed ms. */
    double call(String... words) throws IOException {
        in.write(String.join(" ", words) + "\n");
        in.flush();
        String answer = out.readLine();
        if (answer == null) {
            throw new IllegalStateException(
                    "dockerode child exited (" + String.join(" ", words) + ")");
        }
        if (!answer.startsWith("ok ")) {
            throw new IllegalStateException("dockerode " + words[0] + ": " + answer);
        }
        return Double.parseDouble(answer.substring(3).trim());
    }

    @Override
    public void close() throws Exception {
        try {
            in.write("quit\n");
            in.flush();
        } catch (IOException gone) {
            // already exited
        }
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
