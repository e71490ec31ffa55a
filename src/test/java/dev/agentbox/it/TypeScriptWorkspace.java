package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs npm scripts of the repository's TypeScript workspace (the root {@code package.json}:
 * clients/ and examples/) against the IT server: {@code AGENTBOX_URL}, {@code AGENTBOX_TOKEN}
 * (tenant A) and {@code AGENTBOX_TOKEN_B} (tenant B) are all a script is told. The workspace must
 * have been installed and built ({@code scripts/typescript}); a missing build fails, never skips.
 */
final class TypeScriptWorkspace {

    /** What a script printed and how it ended. */
    record Result(int exitCode, String output) {

        /** The count of a TAP summary line ({@code # pass N}), or -1 when there is none. */
        long tap(String name) {
            Matcher m = Pattern.compile("(?m)^# " + name + " (\\d+)$").matcher(output);
            long n = -1;
            while (m.find()) {
                n = Long.parseLong(m.group(1));
            }
            return n;
        }

        /** The last line, which the examples print as their JSON summary. */
        String lastLine() {
            String s = output.strip();
            return s.substring(s.lastIndexOf('\n') + 1);
        }
    }

    private final Path root = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    private final Api api;

    TypeScriptWorkspace(Api api) {
        this.api = api;
    }

    /** Fails loudly unless the workspace is installed and {@code packages} (dirs) are built. */
    void requireBuilt(String... packageDirs) {
        assertThat(root.resolve("node_modules/agentbox-client"))
                .as("the TypeScript workspace is installed: run scripts/typescript")
                .exists();
        for (String dir : packageDirs) {
            assertThat(root.resolve(dir).resolve("dist"))
                    .as("%s is built: run scripts/typescript", dir)
                    .isDirectory();
        }
    }

    /** {@code npm run <script> -w <workspace>} at the root, killed after {@code timeout}. */
    Result run(String workspace, String script, Duration timeout) {
        List<String> cmd = new ArrayList<>(List.of("npm", "run", "--silent", script, "-w"));
        cmd.add(workspace);
        try {
            Path out = Files.createTempFile("ts-" + script, ".out");
            try {
                ProcessBuilder pb =
                        new ProcessBuilder(cmd)
                                .directory(root.toFile())
                                .redirectErrorStream(true)
                                .redirectOutput(out.toFile());
                Map<String, String> env = pb.environment();
                env.put("AGENTBOX_URL", api.baseUrl());
                env.put("AGENTBOX_TOKEN", Api.TENANT_A);
                env.put("AGENTBOX_TOKEN_B", Api.TENANT_B);
                env.remove("NODE_OPTIONS");
                Process p = pb.start();
                if (!p.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                    throw new AssertionError(
                            String.join(" ", cmd)
                                    + " did not end within "
                                    + timeout
                                    + ":\n"
                                    + tail(Files.readString(out, StandardCharsets.UTF_8)));
                }
                String output = Files.readString(out, StandardCharsets.UTF_8);
                // The test's own output shows what the scripts said, pass or fail.
                System.out.println(tail(output));
                return new Result(p.exitValue(), output);
            } finally {
                Files.deleteIfExists(out);
            }
        } catch (IOException e) {
            throw new AssertionError("could not run " + cmd + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    static String tail(String s) {
        return s.length() <= 12_000 ? s : "…" + s.substring(s.length() - 12_000);
    }
}
