package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The README's quickstart works as written: {@code scripts/readme-quickstart} runs its marked
 * blocks verbatim (the {@code curl} blocks in one bash session, the TypeScript client's block with
 * {@code node} from the repository's root) against this IT server as tenant-a, and checks what they
 * print: the exec's output, the run's events up to {@code RUN_FINISHED}, the sandbox deleted, and
 * the client's exec, streamed text and end. The blocks clean up after themselves, and the script
 * deletes the quickstart's sandbox when a block fails after making it.
 *
 * <p>Needs {@code curl}, {@code node} and the npm workspace installed and built at the root ({@code
 * scripts/typescript}, which {@code scripts/test} runs); a missing one fails loudly, never skips.
 */
class ReadmeQuickstartIT {

    private static final Path SCRIPT = Path.of("scripts/readme-quickstart").toAbsolutePath();
    private static final Duration TIMEOUT = Duration.ofMinutes(6);

    private final Api api = Api.itServer();

    @Test
    void theReadmesQuickstartRunsVerbatimAgainstAServerWithTokens() throws Exception {
        new TypeScriptWorkspace(api).requireBuilt("clients/agentbox-client");
        Path out = Files.createTempFile("readme-quickstart", ".out");
        try {
            ProcessBuilder pb =
                    new ProcessBuilder(SCRIPT.toString())
                            .redirectErrorStream(true)
                            .redirectOutput(out.toFile());
            pb.environment().put("AGENTBOX_URL", api.baseUrl());
            pb.environment().put("AGENTBOX_TOKEN", Api.TENANT_A);
            pb.environment().put("QUICKSTART_TIMEOUT_S", "300");
            Process p = pb.start();
            if (!p.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(
                        "scripts/readme-quickstart did not end within "
                                + TIMEOUT
                                + "; it printed:\n"
                                + read(out));
            }
            String printed = read(out);
            assertThat(p.exitValue())
                    .as("scripts/readme-quickstart's exit code; it printed:\n%s", printed)
                    .isZero();
            String last = printed.strip().substring(printed.strip().lastIndexOf('\n') + 1);
            assertThat(last)
                    .as("its summary line")
                    .startsWith("readme-quickstart: ok:")
                    .contains("ran verbatim against " + api.baseUrl())
                    .containsPattern("[1-9][0-9]* sh and [1-9][0-9]* js blocks")
                    .containsPattern("[1-9][0-9]* checks passed");
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }
}
