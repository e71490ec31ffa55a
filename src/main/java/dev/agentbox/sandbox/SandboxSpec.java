package dev.agentbox.sandbox;

import dev.agentbox.sandbox.spi.BrokeredSecret;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A validated ensure request ({@code POST /api/v1/sandboxes}): what sandbox the caller wants. Built
 * only by {@link SandboxSpecParser}, so every instance is valid.
 */
public record SandboxSpec(
        String definitionId,
        String provider,
        Optional<String> image,
        Optional<String> threadId,
        Workspace workspace,
        SandboxPolicy policy,
        Lifecycle lifecycle) {

    /** Where the workspace comes from. */
    public sealed interface Source permits NoSource, GitSource, LocalSource {}

    public record NoSource() implements Source {}

    /** A git repository cloned into the workspace root. {@code depth} 0 = full history. */
    public record GitSource(String url, Optional<String> ref, int depth) implements Source {}

    /** A host directory copied in (only when {@code agentbox.sources.local.enabled}). */
    public record LocalSource(String path) implements Source {}

    /** One setup entry: a single command, or a group of commands run in parallel. */
    public record SetupStep(List<String> commands, boolean parallel) {

        public static SetupStep single(String command) {
            return new SetupStep(List.of(command), false);
        }

        public static SetupStep group(List<String> commands) {
            return new SetupStep(List.copyOf(commands), true);
        }

        /** How the step is named in logs and errors. */
        public String label() {
            return parallel ? "[" + String.join(", ", commands) + "]" : commands.get(0);
        }
    }

    /**
     * The workspace. {@code secrets} never leave memory except into the running sandbox; {@code
     * brokered} ones never enter it (the sandbox sees a placeholder, its egress gateway the value).
     */
    public record Workspace(
            Source source,
            List<SetupStep> setup,
            Map<String, String> env,
            Map<String, String> secrets,
            Map<String, BrokeredSecret> brokered) {

        public Workspace {
            brokered = brokered == null ? Map.of() : Map.copyOf(brokered);
        }

        public Workspace(
                Source source,
                List<SetupStep> setup,
                Map<String, String> env,
                Map<String, String> secrets) {
            this(source, setup, env, secrets, Map.of());
        }

        @Override
        public String toString() {
            // Never print secret values, not even by accident in a log line.
            return "Workspace[source="
                    + source
                    + ", setup="
                    + setup
                    + ", env="
                    + env.keySet()
                    + ", secrets="
                    + secrets.keySet()
                    + ", brokered="
                    + brokered.keySet()
                    + "]";
        }
    }

    /**
     * {@code thread}: one sandbox per thread; {@code definition}: shared by all threads; {@code
     * none}: a new one each time.
     */
    public enum Reuse {
        THREAD,
        DEFINITION,
        NONE
    }

    public enum SnapshotMode {
        NONE,
        AFTER_SETUP
    }

    public record Lifecycle(Reuse reuse, SnapshotMode snapshot, long keepAliveMs) {}
}
