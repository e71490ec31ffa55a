package dev.agentbox.run;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.run.harness.AgentCommands;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.harness.HarnessImages;
import dev.agentbox.run.harness.PermissionMode;
import dev.agentbox.run.journal.AgentInvocation;
import dev.agentbox.sandbox.SandboxSpec;
import dev.agentbox.sandbox.SandboxSpecParser;
import dev.agentbox.tool.ApprovalRules;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * A validated {@code POST /runs} body. The sandbox is either the key of an existing sandbox or a
 * full ensure body (made when the run starts, so the request returns at once). {@code approvals}
 * are stored with the run ({@link ApprovalRules}).
 */
public record RunRequest(
        String runId,
        String threadId,
        Harness harness,
        Optional<String> command,
        Optional<String> prompt,
        Optional<PermissionMode> permissionMode,
        Optional<String> sandboxKey,
        Optional<SandboxSpec> sandboxSpec,
        boolean durable,
        boolean detachOnDisconnect,
        boolean destroyOnComplete,
        Optional<Long> maxDurationMs,
        boolean fileEvents,
        ApprovalRules approvals) {

    /**
     * Longest accepted runId and threadId: ids are part of lease names, journal names and log
     * lines.
     */
    public static final int MAX_ID_LENGTH = 200;

    private static final Set<String> FIELDS =
            Set.of(
                    "runId",
                    "threadId",
                    "sandbox",
                    "harness",
                    "command",
                    "prompt",
                    "permissionMode",
                    "durable",
                    "detachOnDisconnect",
                    "destroyOnComplete",
                    "maxDurationMs",
                    "fileEvents",
                    "approvals");

    /**
     * What runs in the sandbox: the caller's command for {@code command} (reading the prompt on
     * stdin when there is one, else {@code /dev/null}); for a CLI harness its command line in the
     * run's permission mode, reading the prompt on stdin.
     */
    public AgentInvocation agentInvocation() {
        if (harness == Harness.COMMAND) {
            return prompt.map(p -> AgentInvocation.withPrompt(command.orElseThrow(), p))
                    .orElseGet(() -> AgentInvocation.of(command.orElseThrow()));
        }
        return AgentCommands.forHarness(harness, prompt.orElseThrow(), effectivePermissionMode());
    }

    /** The permission mode a CLI harness runs in: the requested one, else the default. */
    public PermissionMode effectivePermissionMode() {
        return permissionMode.orElse(PermissionMode.FALLBACK);
    }

    /**
     * This request with its ensure body's image defaulted for its harness ({@link HarnessImages}):
     * unchanged for a sandbox key, an ensure body that names an image or another provider than
     * {@code docker}, and the {@code command} harness. A default off the allowlist is a {@code 400
     * image-not-allowed} naming the key to fix.
     */
    public RunRequest withHarnessImage(HarnessImages images, SandboxSpecParser sandboxParser) {
        Optional<String> image = images.imageFor(harness);
        if (sandboxSpec.isEmpty() || image.isEmpty()) {
            return this;
        }
        SandboxSpec spec;
        try {
            spec = sandboxParser.withDefaultImage(sandboxSpec.get(), image.get());
        } catch (ProblemException e) {
            throw new ProblemException(
                    e.code(),
                    "sandbox.image: the "
                            + harness.wireName()
                            + " harness's image "
                            + image.get()
                            + " ("
                            + HarnessImages.key(harness)
                            + ") is not on this server's image allowlist; name an image or ask the operator",
                    Map.of("field", "sandbox.image"),
                    null);
        }
        return new RunRequest(
                runId,
                threadId,
                harness,
                command,
                prompt,
                permissionMode,
                sandboxKey,
                Optional.of(spec),
                durable,
                detachOnDisconnect,
                destroyOnComplete,
                maxDurationMs,
                fileEvents,
                approvals);
    }

    public static RunRequest parse(JsonValue body, SandboxSpecParser sandboxParser) {
        if (!(body instanceof JsonObject o)) {
            throw invalid("body", "must be a JSON object");
        }
        for (String k : o.keySet()) {
            if (!FIELDS.contains(k)) {
                throw invalid(k, "is not a known field");
            }
        }
        boolean durable = bool(o, "durable", true);
        Optional<String> runId = string(o, "runId");
        if (runId.isEmpty() && durable) {
            throw new ProblemException(
                    ProblemCode.RUN_ID_REQUIRED,
                    "runId is required for a durable run",
                    Map.of("field", "runId"),
                    null);
        }
        runId.ifPresent(id -> requireId("runId", id));
        String threadId =
                string(o, "threadId").orElseThrow(() -> invalid("threadId", "is required"));
        requireId("threadId", threadId);
        Optional<Long> maxDurationMs = Optional.empty();
        JsonValue md = o.get("maxDurationMs");
        if (md != null && md != JsonValue.NULL) {
            if (!(md instanceof jakarta.json.JsonNumber n)
                    || !n.isIntegral()
                    || n.bigIntegerValue().signum() < 0
                    || n.bigIntegerValue().bitLength() > 62) {
                throw invalid(
                        "maxDurationMs",
                        "must be a non-negative integer of milliseconds (0 = no bound)");
            }
            maxDurationMs = Optional.of(n.longValue());
        }
        String harnessName = string(o, "harness").orElse("command");
        Harness harness =
                Harness.of(harnessName)
                        .orElseThrow(
                                () ->
                                        invalid(
                                                "harness",
                                                "must be command, claude-code or codex, not \""
                                                        + harnessName
                                                        + "\""));
        Optional<String> command = string(o, "command");
        Optional<String> prompt = string(o, "prompt");
        if (harness == Harness.COMMAND && command.isEmpty()) {
            throw invalid("command", "is required for the command harness");
        }
        if (harness != Harness.COMMAND && prompt.isEmpty()) {
            throw invalid("prompt", "is required for the " + harness.wireName() + " harness");
        }
        Optional<PermissionMode> permissionMode = Optional.empty();
        if (o.containsKey("permissionMode") && o.get("permissionMode") != JsonValue.NULL) {
            if (harness == Harness.COMMAND) {
                throw invalid(
                        "permissionMode", "applies only to the claude-code and codex harnesses");
            }
            String mode = string(o, "permissionMode").orElseThrow();
            permissionMode =
                    Optional.of(
                            PermissionMode.of(mode)
                                    .orElseThrow(
                                            () ->
                                                    invalid(
                                                            "permissionMode",
                                                            "must be one of "
                                                                    + PermissionMode.names())));
        }
        JsonValue sandbox = o.get("sandbox");
        if (!(sandbox instanceof JsonObject s)) {
            throw invalid("sandbox", "is required: {\"key\"} of a sandbox or an ensure body");
        }
        Optional<String> key = Optional.empty();
        Optional<SandboxSpec> spec = Optional.empty();
        if (s.containsKey("key")) {
            if (s.size() != 1
                    || !(s.get("key") instanceof JsonString k)
                    || k.getString().isBlank()) {
                throw invalid("sandbox.key", "must be the only member, a sandbox key");
            }
            key = Optional.of(k.getString());
        } else {
            try {
                spec = Optional.of(sandboxParser.parse(s));
            } catch (ProblemException e) {
                // Keep every member (ceiling, incident, ...); only the field gains its "sandbox."
                // prefix.
                Map<String, Object> extensions = new LinkedHashMap<>(e.extensions());
                extensions.put("field", "sandbox." + e.extensions().getOrDefault("field", ""));
                throw new ProblemException(e.code(), "sandbox." + e.detail(), extensions, null);
            }
        }
        return new RunRequest(
                runId.orElseGet(() -> "run-" + UUID.randomUUID()),
                threadId,
                harness,
                command,
                prompt,
                permissionMode,
                key,
                spec,
                durable,
                bool(o, "detachOnDisconnect", true),
                bool(o, "destroyOnComplete", false),
                maxDurationMs,
                bool(o, "fileEvents", false),
                ApprovalRules.parse(o.get("approvals"), "approvals"));
    }

    /**
     * An id is 1..{@value #MAX_ID_LENGTH} printable characters: no control characters (CR/LF would
     * forge log lines), no unpaired surrogates (they cannot be stored as UTF-8).
     */
    public static void requireId(String field, String id) {
        if (id.length() > MAX_ID_LENGTH) {
            throw invalid(field, "must be at most " + MAX_ID_LENGTH + " characters");
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (Character.isISOControl(c)
                    || c == '\u2028'
                    || c == '\u2029'
                    || Character.isSurrogate(c)
                            && !(Character.isHighSurrogate(c)
                                    && i + 1 < id.length()
                                    && Character.isLowSurrogate(id.charAt(++i)))) {
                throw invalid(field, "must be printable (no control characters) at index " + i);
            }
        }
    }

    private static Optional<String> string(JsonObject o, String name) {
        JsonValue v = o.get(name);
        if (v == null || v == JsonValue.NULL) {
            return Optional.empty();
        }
        if (!(v instanceof JsonString s) || s.getString().isEmpty()) {
            throw invalid(name, "must be a non-empty string");
        }
        return Optional.of(s.getString());
    }

    private static boolean bool(JsonObject o, String name, boolean dflt) {
        JsonValue v = o.get(name);
        if (v == null || v == JsonValue.NULL) {
            return dflt;
        }
        if (v == JsonValue.TRUE) {
            return true;
        }
        if (v == JsonValue.FALSE) {
            return false;
        }
        throw invalid(name, "must be true or false");
    }

    private static ProblemException invalid(String field, String problem) {
        return new ProblemException(
                ProblemCode.INVALID_REQUEST, field + " " + problem, Map.of("field", field), null);
    }
}
