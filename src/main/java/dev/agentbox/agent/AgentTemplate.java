package dev.agentbox.agent;

import dev.agentbox.problem.ProblemException;
import dev.agentbox.run.RunRequest;
import dev.agentbox.run.harness.AcpSpec;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.harness.PermissionMode;
import dev.agentbox.sandbox.GivenSecrets;
import dev.agentbox.sandbox.SandboxSpecParser;
import dev.agentbox.sandbox.SecretBrokering;
import dev.agentbox.tool.ApprovalRules;
import dev.agentbox.tool.http.HttpTool;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A validated agent definition (the body of {@code PUT /agents/{agentId}}): the members of {@code
 * POST /runs} that do not change from run to run. Every run of the agent is that body with the
 * input's runId, threadId and prompt, and its sandbox ensured with {@code reuse: thread} for the
 * input's threadId.
 *
 * <p>Invariants: {@code sandbox} is an ensure body that {@link SandboxSpecParser} accepts once a
 * threadId is set, holds no {@code secrets} member at any depth (definitions are stored; secrets
 * never are) and no {@code threadId} (each run sets it); {@code command} is present exactly for the
 * {@code command} harness; {@code webhooks} are valid ({@link Webhook#parseAll}) — whether their
 * hosts are allowed is the server's check when a definition is stored; {@code brokering} ({@code
 * brokeredSecrets}, {@code plainSecrets}: names and hosts, never a value) names only hosts the
 * sandbox's policy allows.
 */
public record AgentTemplate(
        JsonObject sandbox,
        Harness harness,
        Optional<String> command,
        Optional<PermissionMode> permissionMode,
        boolean durable,
        boolean detachOnDisconnect,
        boolean destroyOnComplete,
        Optional<Long> maxDurationMs,
        List<HttpTool> tools,
        ApprovalRules approvals,
        List<Webhook> webhooks,
        SecretBrokering brokering,
        Optional<AcpSpec> acp) {

    /** Most HTTP tools one definition may carry. */
    public static final int MAX_TOOLS = 32;

    public AgentTemplate {
        tools = List.copyOf(tools);
        webhooks = List.copyOf(webhooks);
    }

    /** agentId: 1-200 characters of {@code [A-Za-z0-9._-]}, not starting with a dot. */
    private static final Pattern AGENT_ID = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}");

    /** The threadId the sandbox is validated with; each run replaces it with its own. */
    private static final String PROBE_THREAD = "agent-definition";

    /** Refuses an agentId outside the safe charset ({@code 400} naming {@code agentId}). */
    public static String requireAgentId(String agentId) {
        if (agentId == null || !AGENT_ID.matcher(agentId).matches()) {
            throw invalid(
                    "agentId",
                    "must be 1-200 characters of A-Z a-z 0-9 . _ - and not start with a dot");
        }
        return agentId;
    }

    /**
     * Validates a PUT body with the same rules as {@code POST /runs} (so a definition that is
     * stored can always start a run), naming the offending field in the {@code 400}.
     */
    public static AgentTemplate parse(JsonValue body, SandboxSpecParser sandboxParser) {
        AgentBody b = AgentBody.read(body);
        JsonObject o = body.asJsonObject();
        JsonObject sandbox = b.sandbox();
        if (sandbox.containsKey("key")) {
            throw invalid(
                    "sandbox.key",
                    "is not allowed: a definition holds an ensure body, each thread gets its own sandbox");
        }
        if (sandbox.containsKey("threadId")) {
            throw invalid("sandbox.threadId", "is set by each run from the input's threadId");
        }
        rejectSecrets(sandbox, "sandbox");
        if (sandbox.get("lifecycle") instanceof JsonObject l
                && l.get("reuse") instanceof JsonString r
                && !r.getString().equals("thread")) {
            throw invalid(
                    "sandbox.lifecycle.reuse",
                    "must be \"thread\" (or absent): the threadId picks the sandbox");
        }
        // The same parser as POST /runs, on the body a run would send (a probe threadId, and a
        // prompt for the CLI harnesses, which require one).
        List<HttpTool> tools = tools(b.tools());
        List<Webhook> webhooks = Webhook.parseAll(o.get("webhooks"));
        JsonObjectBuilder probe = Json.createObjectBuilder(o).remove("tools").remove("webhooks");
        probe.add("runId", "agent-definition");
        probe.add("threadId", PROBE_THREAD);
        probe.add("sandbox", forThread(sandbox, PROBE_THREAD, GivenSecrets.NONE));
        probe.add("prompt", "agent-definition");
        RunRequest r = RunRequest.parse(probe.build(), sandboxParser);
        return new AgentTemplate(
                sandbox,
                r.harness(),
                r.command(),
                r.permissionMode(),
                r.durable(),
                r.detachOnDisconnect(),
                r.destroyOnComplete(),
                r.maxDurationMs(),
                tools,
                r.approvals(),
                webhooks,
                r.brokering(),
                r.acp());
    }

    /**
     * The definition's HTTP tools ({@code tools}, docs/api.md "Tools"; at most {@value #MAX_TOOLS},
     * which {@link AgentBody} checks): names unique, each {@code
     * {"name","description","parameters","url"}} with an object schema. Whether a url's host may be
     * called is the server's decision at call time.
     */
    static List<HttpTool> tools(List<JsonObject> a) {
        List<HttpTool> out = new java.util.ArrayList<>();
        Set<String> names = new java.util.HashSet<>();
        for (int i = 0; i < a.size(); i++) {
            String field = "tools[" + i + "]";
            JsonObject t = a.get(i);
            HttpTool tool;
            try {
                tool = HttpTool.fromJson(t);
            } catch (IllegalArgumentException | ClassCastException e) {
                throw invalid(field, "is not a tool: " + e.getMessage());
            }
            if (!"object".equals(tool.parameters().getString("type", "object"))) {
                throw invalid(field + ".parameters", "must be a JSON Schema of type object");
            }
            if (tool.name().equals(dev.agentbox.tool.bridge.PermissionPrompt.TOOL_NAME)) {
                throw invalid(
                        field + ".name",
                        "is reserved: the bridge's "
                                + tool.name()
                                + " tool asks the run's approval rules for Claude Code's own"
                                + " tools");
            }
            if (!names.add(tool.name())) {
                throw invalid(field + ".name", "repeats the tool name " + tool.name());
            }
            out.add(tool);
        }
        return List.copyOf(out);
    }

    /**
     * The definition's ensure body for one thread: {@code threadId} set, {@code lifecycle.reuse}
     * {@code thread}, and the run's secrets (if any) as {@code workspace.secrets}.
     */
    public static JsonObject forThread(JsonObject sandbox, String threadId, GivenSecrets secrets) {
        JsonObjectBuilder b = Json.createObjectBuilder(sandbox).add("threadId", threadId);
        JsonObjectBuilder lifecycle =
                sandbox.get("lifecycle") instanceof JsonObject l
                        ? Json.createObjectBuilder(l)
                        : Json.createObjectBuilder();
        b.add("lifecycle", lifecycle.add("reuse", "thread"));
        if (!secrets.isEmpty()) {
            JsonObjectBuilder w =
                    sandbox.get("workspace") instanceof JsonObject ws
                            ? Json.createObjectBuilder(ws)
                            : Json.createObjectBuilder();
            b.add("workspace", w.add("secrets", secrets.toJson()));
        }
        return b.build();
    }

    /** The permission mode the definition's CLI runs in: its own, else the default. */
    public PermissionMode effectivePermissionMode() {
        return permissionMode.orElse(PermissionMode.FALLBACK);
    }

    /** The stored form (and the view's fields): only members that are set. */
    public JsonObject toJson() {
        JsonObjectBuilder b =
                Json.createObjectBuilder()
                        .add("sandbox", sandbox)
                        .add("harness", harness.wireName());
        command.ifPresent(c -> b.add("command", c));
        permissionMode.ifPresent(m -> b.add("permissionMode", m.wireName()));
        b.add("durable", durable)
                .add("detachOnDisconnect", detachOnDisconnect)
                .add("destroyOnComplete", destroyOnComplete);
        maxDurationMs.ifPresent(m -> b.add("maxDurationMs", m));
        if (!tools.isEmpty()) {
            JsonArrayBuilder t = Json.createArrayBuilder();
            tools.forEach(tool -> t.add(tool.toJson()));
            b.add("tools", t);
        }
        if (!approvals.isEmpty()) {
            b.add("approvals", approvals.toJson());
        }
        if (!webhooks.isEmpty()) {
            JsonArrayBuilder w = Json.createArrayBuilder();
            webhooks.forEach(h -> w.add(h.toJson()));
            b.add("webhooks", w);
        }
        brokering.addTo(b);
        acp.ifPresent(a -> b.add("acp", a.toJson()));
        return b.build();
    }

    /** Reads the stored form back (it was validated when stored). */
    public static AgentTemplate fromJson(JsonObject o) {
        return new AgentTemplate(
                o.getJsonObject("sandbox"),
                Harness.of(o.getString("harness")).orElseThrow(),
                Optional.ofNullable(o.getString("command", null)),
                Optional.ofNullable(o.getString("permissionMode", null))
                        .flatMap(PermissionMode::of),
                o.getBoolean("durable", true),
                o.getBoolean("detachOnDisconnect", true),
                o.getBoolean("destroyOnComplete", false),
                o.get("maxDurationMs") instanceof JsonNumber n
                        ? Optional.of(n.longValue())
                        : Optional.empty(),
                o.get("tools") instanceof JsonArray t
                        ? tools(t.getValuesAs(JsonObject.class))
                        : List.of(),
                o.get("approvals") instanceof JsonArray a
                        ? ApprovalRules.fromJson(a)
                        : ApprovalRules.NONE,
                Webhook.parseAll(o.get("webhooks")),
                SecretBrokering.parse(o.get("brokeredSecrets"), o.get("plainSecrets")),
                o.containsKey("acp")
                        ? Optional.of(AcpSpec.parse(o.get("acp"), "acp"))
                        : Optional.empty());
    }

    /** A {@code secrets} member at any depth is refused, naming its path. */
    private static void rejectSecrets(JsonValue v, String path) {
        if (v instanceof JsonObject o) {
            for (Map.Entry<String, JsonValue> e : o.entrySet()) {
                String p = path + "." + e.getKey();
                if (e.getKey().equals("secrets")) {
                    throw invalid(
                            p,
                            "is not allowed in a definition (definitions are stored, secrets never"
                                    + " are): send them per run in forwardedProps.agentbox.secrets");
                }
                rejectSecrets(e.getValue(), p);
            }
        } else if (v instanceof JsonArray a) {
            for (int i = 0; i < a.size(); i++) {
                rejectSecrets(a.get(i), path + "[" + i + "]");
            }
        }
    }

    static ProblemException invalid(String field, String problem) {
        return ProblemException.invalidField(field, problem);
    }
}
