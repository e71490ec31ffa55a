package dev.agentbox.sandbox;

import static dev.agentbox.sandbox.SandboxSpecParser.invalid;

import dev.agentbox.platform.body.JsonMembers;
import dev.agentbox.sandbox.SandboxSpec.GitSource;
import dev.agentbox.sandbox.SandboxSpec.LocalSource;
import dev.agentbox.sandbox.SandboxSpec.NoSource;
import dev.agentbox.sandbox.SandboxSpec.SetupStep;
import dev.agentbox.sandbox.SandboxSpec.Source;
import dev.agentbox.sandbox.SandboxSpec.Workspace;
import dev.agentbox.sandbox.spi.GitCredentials;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reads an ensure body's {@code workspace} ({@link WorkspaceBody}) into a {@link Workspace}: the
 * rules its records cannot say — the entries of maps and lists one after the other (a secret is a
 * string or a {@link BrokeredSecretBody}, read by {@link SecretEntries}, a setup step a command or
 * a group of them), a source's members by its {@code type}, credentials in a git URL, the local
 * source root.
 */
final class WorkspaceReader {

    /** A shell variable name: what {@code env} and {@code secrets} keys must be. */
    static final Pattern ENV_NAME = SecretEntries.ENV_NAME;

    private final LocalSources localSources;

    WorkspaceReader(LocalSources localSources) {
        this.localSources = localSources;
    }

    /** {@code value}, the member {@code workspace}; absent is an empty workspace. */
    Workspace read(JsonObject value) {
        if (value == null) {
            return new Workspace(new NoSource(), List.of(), Map.of(), Map.of());
        }
        JsonMembers<WorkspaceBody> m = JsonMembers.of(value, "workspace", WorkspaceBody.class);
        // A string is a secret the sandbox holds, {"value","brokerHosts"} one it never holds
        // (a placeholder in the sandbox, the value at the egress gateway, for those exact hosts).
        GivenSecrets secrets = SecretEntries.read(m.through("secrets"), "workspace.secrets");
        Source source = source(m.through("source"));
        List<SetupStep> setup = setup(m.through("setup"));
        return new Workspace(
                source, setup, env(m.finish().env()), secrets.plain(), secrets.brokered());
    }

    private Source source(JsonObject value) {
        if (value == null) {
            return new NoSource();
        }
        String at = "workspace.source";
        String type = JsonMembers.lenient(value, at, SourceBody.None.class).through("type");
        switch (type) {
            case "none" -> {
                JsonMembers.of(value, at, SourceBody.None.class);
                return new NoSource();
            }
            case "git" -> {
                JsonMembers<SourceBody.Git> m = JsonMembers.of(value, at, SourceBody.Git.class);
                String url = m.through("url");
                Optional<String> credentials = GitCredentials.problemWith(url);
                if (credentials.isPresent()) {
                    throw invalid(at + ".url", credentials.get());
                }
                SourceBody.Git git = m.finish();
                return new GitSource(
                        url,
                        Optional.ofNullable(git.ref()),
                        git.depth() == null ? 0 : git.depth().intValue());
            }
            case "local" -> {
                JsonMembers<SourceBody.Local> m = JsonMembers.of(value, at, SourceBody.Local.class);
                if (!localSources.enabled()) {
                    throw invalid(
                            at + ".type",
                            "\"local\" is disabled on this server (" + LocalSources.ENABLED + ")");
                }
                String path = m.finish().path();
                // Lexical rules only; the directory itself is checked when a sandbox is made.
                localSources.checkAccepted(path);
                return new LocalSource(path);
            }
            default ->
                    throw invalid(at + ".type", "must be git, none or local, not \"" + type + "\"");
        }
    }

    private static List<SetupStep> setup(JsonArray steps) {
        if (steps == null) {
            return List.of();
        }
        List<SetupStep> result = new ArrayList<>();
        for (int i = 0; i < steps.size(); i++) {
            String field = "workspace.setup[" + i + "]";
            JsonValue step = steps.get(i);
            if (step instanceof JsonString js) {
                result.add(SetupStep.single(command(js.getString(), field)));
            } else if (step instanceof JsonArray group) {
                if (group.isEmpty()) {
                    throw invalid(field, "is an empty parallel group");
                }
                List<String> commands = new ArrayList<>();
                for (int j = 0; j < group.size(); j++) {
                    if (!(group.get(j) instanceof JsonString js)) {
                        throw invalid(field + "[" + j + "]", "must be a command string");
                    }
                    commands.add(command(js.getString(), field + "[" + j + "]"));
                }
                result.add(SetupStep.group(commands));
            } else {
                throw invalid(field, "must be a command string or an array of command strings");
            }
        }
        return List.copyOf(result);
    }

    private static String command(String command, String field) {
        if (command.isBlank()) {
            throw invalid(field, "is an empty command");
        }
        return noNul(command, field);
    }

    private static Map<String, String> env(JsonObject value) {
        if (value == null) {
            return Map.of();
        }
        String field = "workspace.env";
        Map<String, String> result = new LinkedHashMap<>();
        for (Map.Entry<String, JsonValue> e : value.entrySet()) {
            name(e.getKey(), field);
            if (!(e.getValue() instanceof JsonString s)) {
                throw invalid(field + "." + e.getKey(), "must be a string");
            }
            result.put(e.getKey(), noNul(s.getString(), field + "." + e.getKey()));
        }
        return Map.copyOf(result);
    }

    private static void name(String name, String field) {
        if (!ENV_NAME.matcher(name).matches()) {
            throw invalid(field, "has an invalid variable name \"" + name + "\"");
        }
    }

    /** A NUL cuts an argv string short: the shell would run less than was asked for. */
    private static String noNul(String value, String field) {
        if (value.indexOf('\0') >= 0) {
            throw invalid(field, "must not contain NUL");
        }
        return value;
    }
}
