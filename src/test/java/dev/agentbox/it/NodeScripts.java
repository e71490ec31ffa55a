package dev.agentbox.it;

import jakarta.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the JavaScript client scripts of {@code src/test/node} (system property {@code
 * agentbox.it.node-dir}) with the machine's {@code node}. Each script takes one JSON argument and
 * prints one JSON object as its last line. A missing {@code node} or a missing install of the
 * clients fails the test: these tests never skip ({@code scripts/node-clients} installs them).
 */
final class NodeScripts {

    /** A script's exit code and the JSON object it printed last. */
    record Result(int exitCode, JsonObject json) {}

    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    private final Path dir =
            Path.of(System.getProperty("agentbox.it.node-dir", "src/test/node")).toAbsolutePath();

    /** Fails loudly unless {@code node} runs and the pinned AG-UI clients are installed. */
    void requireInstalled() {
        requireInstalled(List.of("@ag-ui/client", "@ag-ui/core", "@tanstack/ai-client"));
    }

    /** Fails loudly unless {@code node} runs and {@code packages} are installed. */
    void requireInstalled(List<String> packages) {
        try {
            Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
            String version = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new AssertionError("`node --version` failed: " + version);
            }
        } catch (IOException e) {
            throw new AssertionError(
                    "node is not on PATH: the AG-UI client tests need Node.js 20 or later", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        for (String pkg : packages) {
            if (!Files.isDirectory(dir.resolve("node_modules").resolve(pkg))) {
                throw new AssertionError(
                        pkg
                                + " is not installed in "
                                + dir
                                + "/node_modules: run scripts/node-clients (npm ci there)");
            }
        }
    }

    /** Runs {@code script} with {@code options}; its stderr goes to the test's output. */
    Result run(String script, JsonObject options) {
        return run(script, options, TIMEOUT);
    }

    /** As {@link #run(String, JsonObject)}, killed after {@code timeout}. */
    Result run(String script, JsonObject options, Duration timeout) {
        try {
            Path out = Files.createTempFile("agui-" + script, ".out");
            try {
                Process p =
                        new ProcessBuilder("node", script, options.toString())
                                .directory(dir.toFile())
                                .redirectOutput(out.toFile())
                                .redirectError(ProcessBuilder.Redirect.INHERIT)
                                .start();
                if (!p.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new AssertionError(script + " did not end within " + timeout);
                }
                String stdout = Files.readString(out, StandardCharsets.UTF_8).strip();
                String last = stdout.substring(stdout.lastIndexOf('\n') + 1);
                if (last.isEmpty()) {
                    throw new AssertionError(
                            script + " printed nothing (exit " + p.exitValue() + ")");
                }
                return new Result(p.exitValue(), Api.parse(last));
            } finally {
                Files.deleteIfExists(out);
            }
        } catch (IOException e) {
            throw new AssertionError("could not run node " + script + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
