package dev.agentbox.run.harness;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.run.journal.AgentInvocation;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Runs a harness's command line, exactly as {@link AgentCommands} builds it, with the real CLI of
 * {@value #IMAGE}: {@code docker run --rm -i --network host … sh -c '<command line>'} with the
 * prompt on stdin, as the journal launcher runs it in a sandbox ({@code ( CMD ) < prompt}), as
 * root. The host's network lets the CLI reach a {@code ScriptedModelServer} on {@code 127.0.0.1};
 * the tests configure each CLI so that it talks to nothing else. {@code workspace} is mounted as
 * {@code /workspace} (the working directory) and {@code home} as {@code /home/tester} ({@code
 * HOME}), so files and sessions outlive one run.
 */
final class AgentCliContainer {

    static final String IMAGE = "agentbox/sandbox:agents";
    static final String HOME = "/home/tester";

    /** What one run printed: stdout's lines and stderr, and how it exited. */
    record Output(int exitCode, List<String> lines, String stderr) {}

    private final Path workspace;
    private final Path home;
    private final Map<String, String> env = new LinkedHashMap<>();
    private final List<String> mounts = new ArrayList<>();

    AgentCliContainer(Path workspace, Path home) {
        this.workspace = workspace;
        this.home = home;
        env.put("HOME", HOME);
    }

    /** Mounts host directory {@code dir} at the same path inside the container. */
    AgentCliContainer mountSamePath(Path dir) {
        mounts.add(dir.toAbsolutePath() + ":" + dir.toAbsolutePath());
        return this;
    }

    AgentCliContainer env(String name, String value) {
        env.put(name, value);
        return this;
    }

    /**
     * The variables Claude Code is run with here: the model at {@code baseUrl} with {@code key},
     * and nothing else reached (no telemetry, updates, other traffic or retries).
     */
    AgentCliContainer claudeCode(String baseUrl, String key) {
        return env("ANTHROPIC_BASE_URL", baseUrl)
                .env("ANTHROPIC_API_KEY", key)
                .env("DISABLE_TELEMETRY", "1")
                .env("DISABLE_AUTOUPDATER", "1")
                .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                .env("CLAUDE_CODE_MAX_RETRIES", "0");
    }

    /** Fails (never skips) when the engine does not answer or the image was not built. */
    static void requireImage() {
        Output inspect = docker(List.of("image", "inspect", "--format", "{{.Id}}", IMAGE), "");
        assertThat(inspect.exitCode())
                .as(
                        "the Docker engine must answer and "
                                + IMAGE
                                + " must exist (docker/build-images builds it): "
                                + inspect.stderr())
                .isZero();
    }

    /** The image's label, e.g. {@code dev.agentbox.claude-code.version}. */
    static String label(String name) {
        return docker(
                        List.of(
                                "image",
                                "inspect",
                                "--format",
                                "{{ index .Config.Labels \"" + name + "\" }}",
                                IMAGE),
                        "")
                .lines()
                .get(0);
    }

    Output run(AgentInvocation invocation) {
        String name = "agentbox-cli-test-" + UUID.randomUUID();
        List<String> args = new ArrayList<>(List.of("run", "--rm", "-i", "--name", name));
        args.addAll(List.of("--label", "agentbox.test=agent-cli", "--network", "host"));
        args.addAll(List.of("-v", workspace.toAbsolutePath() + ":/workspace"));
        args.addAll(List.of("-v", home.toAbsolutePath() + ":" + HOME));
        args.addAll(List.of("-w", "/workspace"));
        mounts.forEach(m -> args.addAll(List.of("-v", m)));
        env.forEach((k, v) -> args.addAll(List.of("-e", k + "=" + v)));
        args.addAll(List.of(IMAGE, "sh", "-c", invocation.command()));
        try {
            return docker(args, invocation.prompt().orElse(""), Duration.ofSeconds(120), name);
        } finally {
            // Files the CLI wrote as root in the mounts: readable and removable by the test.
            docker(
                    List.of(
                            "run",
                            "--rm",
                            "--network",
                            "none",
                            "-v",
                            workspace.toAbsolutePath() + ":/w",
                            "-v",
                            home.toAbsolutePath() + ":/h",
                            IMAGE,
                            "chmod",
                            "-R",
                            "a+rwX",
                            "/w",
                            "/h"),
                    "");
        }
    }

    private static Output docker(List<String> args, String stdin) {
        return docker(args, stdin, Duration.ofSeconds(60), null);
    }

    private static Output docker(
            List<String> args, String stdin, Duration timeout, String containerName) {
        List<String> cmd = new ArrayList<>();
        cmd.add("docker");
        cmd.addAll(args);
        Path out = null;
        Path err = null;
        try {
            out = Files.createTempFile("agent-cli", ".out");
            err = Files.createTempFile("agent-cli", ".err");
            Process p =
                    new ProcessBuilder(cmd)
                            .redirectOutput(out.toFile())
                            .redirectError(err.toFile())
                            .start();
            try (OutputStream in = p.getOutputStream()) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                if (containerName != null) {
                    new ProcessBuilder("docker", "kill", containerName)
                            .redirectErrorStream(true)
                            .start()
                            .waitFor(30, TimeUnit.SECONDS);
                }
                p.destroyForcibly();
                throw new AssertionError(
                        "docker "
                                + String.join(" ", args)
                                + " did not end within "
                                + timeout
                                + "; stdout so far: "
                                + Files.readString(out));
            }
            return new Output(
                    p.exitValue(),
                    Files.readString(out, StandardCharsets.UTF_8).lines().toList(),
                    Files.readString(err, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new AssertionError("the docker CLI is not runnable: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } finally {
            for (Path f : new Path[] {out, err}) {
                if (f != null) {
                    try {
                        Files.deleteIfExists(f);
                    } catch (IOException ignored) {
                        // a temp file left behind
                    }
                }
            }
        }
    }
}
