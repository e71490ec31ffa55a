package dev.agentbox.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The docker CLI, for tests that look at the engine from outside agentbox. Fails loudly without an
 * engine.
 */
public final class DockerCli {

    private DockerCli() {}

    public record Result(int exitCode, String out) {}

    public static Result run(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add("docker");
        cmd.addAll(Arrays.asList(args));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("docker " + String.join(" ", args) + " timed out");
            }
            return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException("docker CLI not runnable: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Runs and requires exit 0; returns trimmed output. */
    public static String ok(String... args) {
        Result r = run(args);
        if (r.exitCode() != 0) {
            throw new IllegalStateException(
                    "docker "
                            + String.join(" ", args)
                            + " failed ("
                            + r.exitCode()
                            + "): "
                            + r.out());
        }
        return r.out().trim();
    }

    /** Ids of containers carrying all the given labels ({@code k=v}). */
    public static List<String> containersWithLabels(String... labels) {
        List<String> args = new ArrayList<>(List.of("ps", "-aq"));
        for (String l : labels) {
            args.add("--filter");
            args.add("label=" + l);
        }
        String out = ok(args.toArray(String[]::new));
        return out.isEmpty() ? List.of() : List.of(out.split("\\s+"));
    }
}
