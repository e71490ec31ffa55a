package dev.agentbox.run.acp;

import dev.agentbox.run.harness.AcpConversation;
import dev.agentbox.run.harness.AcpConversation.Step;
import dev.agentbox.run.harness.AcpMessages;
import dev.agentbox.run.harness.AcpMessages.ClientCapabilities;
import dev.agentbox.run.harness.AcpMessages.EnvVariable;
import dev.agentbox.run.harness.AcpMessages.FileSystemCapabilities;
import dev.agentbox.run.harness.AcpMessages.Implementation;
import dev.agentbox.run.harness.AcpMessages.InitializeRequest;
import dev.agentbox.run.harness.AcpMessages.LoadSessionRequest;
import dev.agentbox.run.harness.AcpMessages.McpServerStdio;
import dev.agentbox.run.harness.AcpMessages.NewSessionRequest;
import dev.agentbox.run.harness.AcpMessages.PermissionOption;
import dev.agentbox.run.harness.AcpMessages.PromptRequest;
import dev.agentbox.run.harness.AcpMessages.Request;
import dev.agentbox.run.harness.AcpMessages.RequestPermissionOutcome;
import dev.agentbox.run.harness.AcpMessages.RequestPermissionRequest;
import dev.agentbox.run.harness.AcpMessages.RequestPermissionResponse;
import dev.agentbox.run.harness.AcpMessages.Response;
import dev.agentbox.run.harness.AcpMessages.ResumeSessionRequest;
import dev.agentbox.run.harness.AcpMessages.SetSessionModeRequest;
import dev.agentbox.run.harness.AcpMessages.TextContent;
import dev.agentbox.run.harness.AcpPlan;
import dev.agentbox.run.harness.BridgeFlags;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.tool.GateDecision;
import dev.agentbox.tool.ToolCall;
import dev.agentbox.tool.ToolGate;
import dev.agentbox.tool.bridge.LineFollow;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The ACP client of one {@code acp} run on the server that drives it (docs/acp.md). It follows the
 * run's journal — the agent's stdout — from its first byte, feeds each line to an {@link
 * AcpConversation}, and writes what the conversation asks for into the run's inbox ({@link
 * AcpInbox}), which the sandbox's feeder copies to the agent's stdin once per name:
 *
 * <ul>
 *   <li>our requests as {@code q-NNNNNN} (N the request id), rendered from the plan, the workspace,
 *       the run's prompt file and the MCP token file;
 *   <li>our answer to a request of the agent's as {@code a-<hash of its id>}: a permission request
 *       goes through the run's gate (its approval rules; an {@code ask} is a durable interrupt),
 *       anything else is refused ({@code fs/*} and {@code terminal/*} are not offered);
 *   <li>{@code end} once the prompt is answered or a step failed, which closes the agent's stdin.
 * </ul>
 *
 * <p>Why it survives its server: every request is a function of the journal (the same lines yield
 * the same bytes), and a name is written only where it is not there yet, so a server that takes the
 * run over replays the journal, writes only what is missing, and asks the gate again only for
 * permission requests still unanswered — the gate is idempotent on the call key, so an interrupt
 * that waited is found again and answered exactly once. Two servers writing one name write the same
 * bytes; the feeder sends a name once.
 */
public final class AcpClient implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(AcpClient.class.getName());

    /**
     * A journal line longer than this is passed over, as the run's reader cuts it (and the
     * translator reports it).
     */
    static final int MAX_LINE = dev.agentbox.run.journal.JournalReaderOptions.MAX_LINE_BYTES;

    private final SandboxHandle handle;
    private final String runId;
    private final AcpInbox inbox;
    private final AcpConversation conversation;
    private final AcpPlan plan;
    private final ToolGate gate;
    private final Set<String> written = ConcurrentHashMap.newKeySet();
    private final LineFollow follow;
    private volatile boolean closed;

    /**
     * Requests of the agent's one client answers at most: the agent is not trusted, and each answer
     * is a write into its sandbox (and an ask, an interrupt). Past it, requests go unanswered and
     * the run's {@code maxDurationMs} bounds the wait.
     */
    static final int MAX_AGENT_REQUESTS = 10_000;

    private int agentRequests;

    private AcpClient(
            SandboxHandle handle,
            String runId,
            AcpPlan plan,
            ToolGate gate,
            ThreadFactory threads) {
        this.handle = handle;
        this.runId = runId;
        this.plan = plan;
        this.gate = gate;
        this.inbox = AcpInbox.of(handle, runId);
        this.conversation = new AcpConversation(plan);
        this.follow = new LineFollow(handle.fs(), inbox.journal(), MAX_LINE, this::onLine, threads);
    }

    /**
     * Starts the client of run {@code runId} on {@code handle}: what the inbox already holds is
     * read first (a successor writes nothing twice), then the journal is followed from its start.
     */
    public static AcpClient start(
            SandboxHandle handle,
            String runId,
            AcpPlan plan,
            ToolGate gate,
            ThreadFactory threads) {
        AcpClient c = new AcpClient(handle, runId, plan, gate, threads);
        c.written.addAll(c.inbox.names());
        for (Step s : c.conversation.start()) {
            c.act(s);
        }
        c.follow.start();
        return c;
    }

    private void onLine(String line) {
        if (closed || line == null) {
            return;
        }
        try {
            for (Step s : conversation.onLine(line)) {
                act(s);
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "run " + runId + ": ACP client failed on a line", e);
        }
    }

    private void act(Step step) {
        if (step instanceof Step.Send s) {
            String name = AcpInbox.requestName(s.id());
            if (!written.contains(name)) {
                write(name, render(s));
            }
        } else if (step instanceof Step.Opened o) {
            try {
                inbox.session(o.sessionId());
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "run " + runId + ": noting the ACP session failed", e);
            }
        } else if (step instanceof Step.End) {
            write(AcpInbox.END, "");
        } else if (step instanceof Step.AgentRequest r) {
            answer(r);
        }
    }

    private String render(Step.Send s) {
        return render(s, plan, conversation.sessionId(), cwd(), inbox::prompt, this::mcpServers);
    }

    /**
     * Our request {@code s} as the line the agent reads: a function of the plan, the session, the
     * workspace, the prompt and the MCP servers (read only when the request carries them).
     */
    static String render(
            Step.Send s,
            AcpPlan plan,
            Optional<String> sessionId,
            String cwd,
            java.util.function.Supplier<String> prompt,
            java.util.function.Supplier<List<McpServerStdio>> mcp) {
        Object params =
                switch (s.method()) {
                    case "initialize" ->
                            new InitializeRequest(
                                    AcpMessages.PROTOCOL_VERSION,
                                    new ClientCapabilities(
                                            new FileSystemCapabilities(false, false), false),
                                    new Implementation("agentbox", "1"));
                    case "session/new" -> new NewSessionRequest(cwd, mcp.get());
                    case "session/load" ->
                            new LoadSessionRequest(
                                    plan.continueSession().orElseThrow(), cwd, mcp.get());
                    case "session/resume" ->
                            new ResumeSessionRequest(
                                    plan.continueSession().orElseThrow(), cwd, mcp.get());
                    case "session/set_mode" ->
                            new SetSessionModeRequest(
                                    sessionId.orElseThrow(), s.modeId().orElseThrow());
                    case "session/prompt" ->
                            new PromptRequest(
                                    sessionId.orElseThrow(), List.of(TextContent.of(prompt.get())));
                    default -> throw new IllegalStateException("no request " + s.method());
                };
        return AcpMessages.write(Request.of(s.id(), s.method(), params));
    }

    private String cwd() {
        return handle.workspaceRoot();
    }

    /** The run's {@code agentbox} MCP server (the helper's relay on its mailbox), if it has one. */
    private List<McpServerStdio> mcpServers() {
        if (!plan.mcp()) {
            return List.of();
        }
        return List.of(
                new McpServerStdio(
                        "agentbox",
                        BridgeFlags.HELPER,
                        List.of("mcp", inbox.mailbox()),
                        List.of(new EnvVariable("AGENTBOX_MCP_TOKEN", inbox.token()))));
    }

    private void answer(Step.AgentRequest r) {
        String name = AcpInbox.answerName(r.id());
        if (written.contains(name)) {
            return; // answered by this server or the one before
        }
        if (++agentRequests > MAX_AGENT_REQUESTS) {
            if (agentRequests == MAX_AGENT_REQUESTS + 1) {
                LOG.warning(
                        "run "
                                + runId
                                + ": the ACP agent sent more than "
                                + MAX_AGENT_REQUESTS
                                + " requests; the rest go unanswered");
            }
            return;
        }
        if (!"session/request_permission".equals(r.method())) {
            write(
                    name,
                    AcpMessages.write(
                            Response.error(
                                    r.id(),
                                    -32601,
                                    r.method()
                                            + " is not offered: agentbox advertises no fs and no"
                                            + " terminal")));
            return;
        }
        Optional<RequestPermissionRequest> read =
                AcpMessages.read(r.params(), RequestPermissionRequest.class);
        if (read.isEmpty() || read.get().toolCall() == null || read.get().options() == null) {
            write(name, AcpMessages.write(Response.error(r.id(), -32602, "invalid params")));
            return;
        }
        RequestPermissionRequest p = read.get();
        String title = p.toolCall().title();
        String kind = p.toolCall().kind();
        String tool =
                title != null && !title.isBlank()
                        ? title
                        : kind != null && !kind.isBlank() ? kind : "tool";
        JsonObject args =
                p.toolCall().rawInput() instanceof JsonObject o
                        ? o
                        : p.toolCall().rawInput() == null
                                        || p.toolCall().rawInput() == JsonValue.NULL
                                ? JsonValue.EMPTY_JSON_OBJECT
                                : Json.createObjectBuilder()
                                        .add("value", p.toolCall().rawInput())
                                        .build();
        String callKey = "acp:" + name;
        gate.admit(new ToolCall(runId, callKey, tool, args))
                .whenComplete(
                        (decision, failure) -> {
                            if (closed) {
                                return; // the next driver asks again
                            }
                            GateDecision d =
                                    failure == null
                                            ? decision
                                            : GateDecision.deny("the decision failed");
                            write(
                                    name,
                                    AcpMessages.write(
                                            Response.result(
                                                    r.id(),
                                                    new RequestPermissionResponse(
                                                            outcome(d.allowed(), p.options())))));
                        });
    }

    /** The first option of the decision's kind (once, else always), else {@code cancelled}. */
    static RequestPermissionOutcome outcome(boolean allowed, List<PermissionOption> options) {
        List<String> kinds =
                allowed
                        ? List.of("allow_once", "allow_always")
                        : List.of("reject_once", "reject_always");
        for (String k : kinds) {
            for (PermissionOption o : options) {
                if (o != null && k.equals(o.kind()) && o.optionId() != null) {
                    return RequestPermissionOutcome.selected(o.optionId());
                }
            }
        }
        return RequestPermissionOutcome.cancelled();
    }

    private void write(String name, String text) {
        if (closed || !written.add(name)) {
            return;
        }
        try {
            handle.fs().write(inbox.path(name), text.getBytes(StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            written.remove(name); // a successor, or the next line, writes it
            LOG.log(
                    Level.WARNING,
                    "run " + runId + ": writing " + name + " to the agent failed",
                    e);
        }
    }

    @Override
    public void close() {
        closed = true;
        follow.close();
    }
}
