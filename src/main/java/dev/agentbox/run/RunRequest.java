package dev.agentbox.run;

import dev.agentbox.platform.body.PrintableValidator;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.run.harness.AcpSpec;
import dev.agentbox.run.harness.AgentCommands;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.harness.HarnessImages;
import dev.agentbox.run.harness.PermissionMode;
import dev.agentbox.run.journal.AgentInvocation;
import dev.agentbox.sandbox.SandboxSpec;
import dev.agentbox.sandbox.SandboxSpecParser;
import dev.agentbox.sandbox.SecretBrokering;
import dev.agentbox.tool.ApprovalRules;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * A validated {@code POST /runs} body. The sandbox is either the key of an existing sandbox or a
 * full ensure body (made when the run starts, so the request returns at once). {@code approvals}
 * are stored with the run ({@link ApprovalRules}). {@code brokering} ({@code brokeredSecrets},
 * {@code plainSecrets}) is already applied to the ensure body's secrets; it is kept for an agent
 * definition, which stores it.
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
        ApprovalRules approvals,
        SecretBrokering brokering,
        Optional<AcpSpec> acp) {

    /**
     * Longest accepted runId and threadId: ids are part of lease names, journal names and log
     * lines.
     */
    public static final int MAX_ID_LENGTH = 200;

    /**
     * What runs in the sandbox: the caller's command for {@code command} (reading the prompt on
     * stdin when there is one, else {@code /dev/null}); for a CLI harness its command line in the
     * run's permission mode, reading the prompt on stdin.
     */
    public AgentInvocation agentInvocation() {
        if (harness == Harness.ACP) {
            return AgentInvocation.withPrompt(
                    acp.orElseThrow().commandLine(), prompt.orElseThrow());
        }
        if (harness == Harness.COMMAND) {
            return prompt.map(p -> AgentInvocation.withPrompt(command.orElseThrow(), p))
                    .orElseGet(() -> AgentInvocation.of(command.orElseThrow()));
        }
        return AgentCommands.forHarness(harness, prompt.orElseThrow(), effectivePermissionMode());
    }

    /**
     * This request continuing the thread's ACP session {@code session} (an {@code acp} run of the
     * agent endpoint); unchanged for every other harness.
     */
    public RunRequest withAcpSession(Optional<String> session) {
        if (acp.isEmpty() || session.isEmpty()) {
            return this;
        }
        return new RunRequest(
                runId,
                threadId,
                harness,
                command,
                prompt,
                permissionMode,
                sandboxKey,
                sandboxSpec,
                durable,
                detachOnDisconnect,
                destroyOnComplete,
                maxDurationMs,
                fileEvents,
                approvals,
                brokering,
                acp.map(a -> a.continuing(session)));
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
                approvals,
                brokering,
                acp);
    }

    /**
     * Reads a {@code POST /runs} body: each member by {@link RunBody}, then the rules that span
     * members or name wire values, in the order a client fixes them.
     */
    public static RunRequest parse(JsonValue body, SandboxSpecParser sandboxParser) {
        RunBody b = RunBody.read(body);
        boolean durable = b.durable() == null || b.durable();
        if (b.runId() == null && durable) {
            throw new ProblemException(
                    ProblemCode.RUN_ID_REQUIRED,
                    "runId is required for a durable run",
                    Map.of("field", "runId"),
                    null);
        }
        String harnessName = b.harness() == null ? "command" : b.harness();
        Harness harness =
                Harness.of(harnessName)
                        .orElseThrow(
                                () ->
                                        invalid(
                                                "harness",
                                                "must be command, claude-code, codex or acp, not \""
                                                        + harnessName
                                                        + "\""));
        Optional<String> command = Optional.ofNullable(b.command());
        Optional<String> prompt = Optional.ofNullable(b.prompt());
        if (harness == Harness.COMMAND && command.isEmpty()) {
            throw invalid("command", "is required for the command harness");
        }
        if (harness != Harness.COMMAND && prompt.isEmpty()) {
            throw invalid("prompt", "is required for the " + harness.wireName() + " harness");
        }
        Optional<AcpSpec> acp = Optional.empty();
        if (harness == Harness.ACP) {
            if (b.acp() == null) {
                throw invalid("acp", "is required for the acp harness: {\"agent\":…}");
            }
            acp = Optional.of(AcpSpec.parse(b.acp(), "acp"));
        } else if (b.acp() != null) {
            throw invalid("acp", "applies only to the acp harness");
        }
        Optional<PermissionMode> permissionMode = Optional.empty();
        if (b.permissionMode() != null) {
            if (harness == Harness.COMMAND) {
                throw invalid(
                        "permissionMode",
                        "applies only to the claude-code, codex and acp harnesses");
            }
            permissionMode =
                    Optional.of(
                            PermissionMode.of(b.permissionMode())
                                    .orElseThrow(
                                            () ->
                                                    invalid(
                                                            "permissionMode",
                                                            "must be one of "
                                                                    + PermissionMode.names())));
        }
        SecretBrokering brokering = SecretBrokering.parse(b.brokeredSecrets(), b.plainSecrets());
        JsonObject s = b.sandbox();
        Optional<String> key = Optional.empty();
        Optional<SandboxSpec> spec = Optional.empty();
        if (s.containsKey("key")) {
            if (s.size() != 1
                    || !(s.get("key") instanceof JsonString k)
                    || k.getString().isBlank()) {
                throw invalid("sandbox.key", "must be the only member, a sandbox key");
            }
            key = Optional.of(k.getString());
            if (!brokering.isEmpty()) {
                throw invalid(
                        brokering.brokered().isEmpty() ? "plainSecrets" : "brokeredSecrets",
                        "applies to the secrets of an ensure body; a sandbox key brings none");
            }
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
            // Its own fields (brokeredSecrets.NAME[i]): not the sandbox's.
            spec = Optional.of(sandboxParser.withBrokering(spec.get(), brokering));
        }
        return new RunRequest(
                b.runId() == null ? "run-" + UUID.randomUUID() : b.runId(),
                b.threadId(),
                harness,
                command,
                prompt,
                permissionMode,
                key,
                spec,
                durable,
                b.detachOnDisconnect() == null || b.detachOnDisconnect(),
                b.destroyOnComplete() != null && b.destroyOnComplete(),
                Optional.ofNullable(b.maxDurationMs()),
                b.fileEvents() != null && b.fileEvents(),
                ApprovalRules.parse(b.approvals(), "approvals"),
                brokering,
                acp);
    }

    /**
     * An id is 1..{@value #MAX_ID_LENGTH} printable characters: no control characters (CR/LF would
     * forge log lines), no unpaired surrogates (they cannot be stored as UTF-8).
     */
    public static void requireId(String field, String id) {
        if (id.length() > MAX_ID_LENGTH) {
            throw invalid(field, "must be at most " + MAX_ID_LENGTH + " characters");
        }
        int at = PrintableValidator.firstUnprintable(id);
        if (at >= 0) {
            throw invalid(field, "must be printable (no control characters) at index " + at);
        }
    }

    private static ProblemException invalid(String field, String problem) {
        return ProblemException.invalidField(field, problem);
    }
}
