package dev.agentbox.it;

import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * An extra agentbox server for a test: the server packaged in the runnable jar ({@code
 * target/agentbox.jar}) on its own port, with its output directory and log under the test's folder.
 * Stopped with SIGTERM (or {@link #kill()} for a crash).
 *
 * <p>The jar is unpacked once per test JVM ({@link JarInstall}) and each server runs from that copy
 * with {@code server run}: what {@code java -jar} would run, without unpacking 120 MB again for
 * every start. {@link #startJar} runs the jar itself, as {@code RunnableJarIT} does. Either way the
 * server's JVM compiles with C1 only ({@link JarInstall#JVM_ARGS}).
 */
public final class JarServer implements AutoCloseable {

    private final Process process;
    private final Path log;
    private final Api api;

    private JarServer(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.api = new Api("http://localhost:" + port);
    }

    /**
     * Starts a server from the unpacked jar and waits until {@code readyPath} answers 200 (or the
     * process dies: then it fails at once). A server that does not come up within 300 s is killed
     * before the failure.
     */
    public static JarServer start(Path work, int port, Map<String, String> env, String readyPath) {
        return launch(
                JarInstall.serverRun(work.resolve("out-" + port)), work, port, env, readyPath);
    }

    /**
     * Starts several servers at once, for a test that needs them all before it begins: their starts
     * overlap (a start spends much of its time waiting, not computing). If one fails, the others
     * are stopped before the failure is thrown, so none is left holding a port.
     */
    @SafeVarargs
    public static List<JarServer> startTogether(Supplier<JarServer>... starts) {
        List<CompletableFuture<JarServer>> pending =
                Arrays.stream(starts)
                        // A thread each: the common pool has one worker on 2 cores.
                        .map(start -> CompletableFuture.supplyAsync(start, JarServer::thread))
                        .toList();
        List<JarServer> started = new ArrayList<>();
        RuntimeException failure = null;
        for (CompletableFuture<JarServer> p : pending) {
            try {
                started.add(p.join());
            } catch (CompletionException e) {
                failure = failure == null ? new IllegalStateException(e.getCause()) : failure;
            }
        }
        if (failure != null) {
            for (JarServer server : started) {
                try {
                    server.close();
                } catch (Exception e) {
                    failure.addSuppressed(e);
                }
            }
            throw failure;
        }
        return started;
    }

    private static void thread(Runnable task) {
        Thread t = new Thread(task, "jar-server-start");
        t.setDaemon(true);
        t.start();
    }

    /** As {@link #start}, but as a user runs it: {@code java -jar target/agentbox.jar}. */
    public static JarServer startJar(
            Path work, int port, Map<String, String> env, String readyPath) {
        String jar = System.getProperty("agentbox.it.runnable-jar", "target/agentbox.jar");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // No performance data for the launcher's JVM either (JarInstall.JVM_ARGS says why): its
        // command line names agentbox.jar.
        ProcessBuilder pb = new ProcessBuilder(java, "-XX:-UsePerfData", "-jar", jar);
        pb.environment().put("JVM_ARGS", JarInstall.JVM_ARGS);
        // Extracted under the test's folder, not ~/wlpExtract: a killed server's copy (its
        // launcher deletes it only on a clean stop) goes with the folder.
        pb.environment().put("WLP_JAR_EXTRACT_ROOT", work.resolve("extract").toString());
        return launch(pb, work, port, env, readyPath);
    }

    private static JarServer launch(
            ProcessBuilder pb, Path work, int port, Map<String, String> env, String readyPath) {
        Path log = work.resolve("server-" + port + ".log");
        pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().remove("AGENTBOX_AUTH_TOKENS");
        pb.environment().remove("AGENTBOX_DB_URL");
        pb.environment().put("HTTP_PORT", String.valueOf(port));
        pb.environment().put("HTTPS_PORT", String.valueOf(port + 363));
        pb.environment().put("WLP_OUTPUT_DIR", work.resolve("out-" + port).toString());
        // No warm pool unless the test asks for one: its background containers would load the
        // machine and show up in the tests that count containers.
        pb.environment().put("AGENTBOX_POOL_SIZE", "0");
        // As on the IT server: a real agent CLI may take more than the shipped 10 s to print its
        // first line while the suite's lanes share the machine.
        pb.environment().put("AGENTBOX_RUNS_JOURNAL_FIRST_BYTE_MS", "30000");
        pb.environment().putAll(env);
        if (env.containsKey("JVM_ARGS")) { // a test's own flags add to the shared ones
            pb.environment().put("JVM_ARGS", JarInstall.JVM_ARGS + " " + env.get("JVM_ARGS"));
        }
        Process process;
        try {
            process = pb.start();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        JarServer server = new JarServer(process, log, port);
        try {
            awaitReady(server, process, log, readyPath);
        } catch (RuntimeException | Error e) {
            // Never leave a server that did not come up (in time) running: it would hold the
            // port and the database for the next test.
            try {
                server.kill();
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
            throw e;
        }
        return server;
    }

    private static void awaitReady(JarServer server, Process process, Path log, String readyPath) {
        try {
            awaitReadyOrTimeOut(server, process, log, readyPath);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            // Say where it got stuck (extracting, starting, or up but not ready).
            String text;
            try {
                text = Files.readString(log);
            } catch (java.io.IOException unreadable) {
                text = "(log unreadable: " + unreadable + ")";
            }
            throw new IllegalStateException(
                    "the server at "
                            + server.api.baseUrl()
                            + " was not ready within 300 s; the end of its log:\n"
                            + text.substring(Math.max(0, text.length() - 4000)),
                    e);
        }
    }

    private static void awaitReadyOrTimeOut(
            JarServer server, Process process, Path log, String readyPath) {
        await().atMost(Duration.ofSeconds(300))
                .pollInterval(Duration.ofMillis(100))
                .until(
                        () -> {
                            if (!process.isAlive()) {
                                throw new IllegalStateException(
                                        "the server exited with "
                                                + process.exitValue()
                                                + ":\n"
                                                + Files.readString(log));
                            }
                            try {
                                return server.api
                                                .send(server.api.request(readyPath).GET())
                                                .statusCode()
                                        == 200;
                            } catch (IllegalStateException notListeningYet) {
                                return false;
                            }
                        });
    }

    public Api api() {
        return api;
    }

    public String log() throws Exception {
        return Files.readString(log);
    }

    public long pid() {
        return process.pid();
    }

    /**
     * SIGKILL: the server dies without any shutdown work. The {@code server} script forks the
     * server JVM, so the whole process tree is killed, server first.
     */
    public void kill() throws InterruptedException {
        for (ProcessHandle child : process.descendants().toList()) {
            child.destroyForcibly();
            child.onExit().join();
        }
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws Exception {
        List<ProcessHandle> tree = process.descendants().toList();
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        // The script may end before its JVM; never leave a server running.
        for (ProcessHandle child : tree) {
            child.destroy();
            try {
                child.onExit().get(30, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                child.destroyForcibly();
            }
        }
    }
}
