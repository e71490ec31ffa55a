package dev.agentbox.tool.bridge;

import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.sandbox.spi.SandboxFs;
import dev.agentbox.tool.ClientTool;
import dev.agentbox.tool.ClientToolCalls;
import dev.agentbox.tool.ToolCallEvents;
import dev.agentbox.tool.ToolGate;
import dev.agentbox.tool.http.HttpTool;
import dev.agentbox.tool.http.HttpToolClient;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.jackson3.DefaultJsonSchemaValidator;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.logging.Logger;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.json.JsonMapper;

/**
 * The MCP server of one run, as seen by the server that drives the run: it follows the run's
 * mailbox in the sandbox ({@link Mailbox}) and serves every relay session that authenticates with
 * the run's token, through one MCP server built with the SDK.
 *
 * <p>A bridge holds nothing the mailbox does not: a server that takes the run over starts a new
 * bridge on the same mailbox and carries on where the mailbox says (see {@link BridgeSession}).
 * Closing a bridge stops following and abandons calls in flight without answering them, so the
 * relay keeps waiting for the next bridge.
 */
public final class ToolBridge implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(ToolBridge.class.getName());

    /**
     * What a run offers its agent.
     *
     * @param runId the run
     * @param tokenSha256 the SHA-256 of the run's bridge token: a session must present a token with
     *     exactly this hash (the run stores only the hash)
     * @param tools the run's HTTP tools
     * @param secret the HMAC secret their posts are signed with (empty: unsigned)
     * @param permissionPrompt whether to offer {@link PermissionPrompt#TOOL_NAME}, the tool Claude
     *     Code asks before running one of its own tools
     * @param clientTools the run's client tools ({@code RunAgentInput.tools}), answered by the
     *     AG-UI client through an interrupt
     */
    public record RunTools(
            String runId,
            byte[] tokenSha256,
            List<HttpTool> tools,
            byte[] secret,
            boolean permissionPrompt,
            List<ClientTool> clientTools) {
        public RunTools {
            Objects.requireNonNull(runId);
            if (tokenSha256 == null || tokenSha256.length != 32) {
                throw new IllegalArgumentException("a bridge needs a token's SHA-256");
            }
            tools = List.copyOf(tools);
            clientTools = List.copyOf(clientTools);
        }

        /** The tools of a run without client tools. */
        public RunTools(
                String runId,
                byte[] tokenSha256,
                List<HttpTool> tools,
                byte[] secret,
                boolean permissionPrompt) {
            this(runId, tokenSha256, tools, secret, permissionPrompt, List.of());
        }

        /** The tools of a run whose token is {@code token}, without the permission prompt tool. */
        public RunTools(String runId, String token, List<HttpTool> tools, byte[] secret) {
            this(runId, sha256(requireToken(token)), tools, secret, false);
        }

        private static String requireToken(String token) {
            if (token == null || token.isEmpty()) {
                throw new IllegalArgumentException("a bridge needs a token");
            }
            return token;
        }
    }

    /** SHA-256 of {@code text}'s UTF-8 bytes. */
    static byte[] sha256(String text) {
        try {
            return java.security.MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private final SandboxFs fs;
    private final Mailbox mailbox;
    private final RunTools run;
    private final BridgeRun counts;
    private final McpJsonMapper json = new JacksonMcpJsonMapper(JsonMapper.builder().build());
    private final MailboxSessions provider = new MailboxSessions();
    private final McpAsyncServer server;
    private final ExecutorService executor;
    private final Scheduler blocking;
    private final DaemonThreads threads;
    private final Map<String, BridgeSession> sessions = new ConcurrentHashMap<>();

    /** Most sessions named while {@code maxSessions} are open that wait for a place. */
    static final int MAX_WAITING = 1024;

    /** Most names of ended sessions remembered (a name listed again is not followed again). */
    private static final int MAX_ENDED = 65536;

    private final java.util.ArrayDeque<String> waiting = new java.util.ArrayDeque<>();
    private final java.util.Set<String> ended = new java.util.HashSet<>();
    private final LineFollow sessionList;
    private volatile boolean closed;

    private ToolBridge(
            SandboxFs fs,
            Mailbox mailbox,
            RunTools run,
            ToolGate gate,
            HttpToolClient client,
            BridgeLimits limits,
            ToolCallEvents events,
            ClientToolCalls clientCalls) {
        this.fs = fs;
        this.mailbox = mailbox;
        this.run = run;
        this.counts = new BridgeRun(limits);
        this.threads = new DaemonThreads("tool-bridge-" + run.runId());
        this.executor = Executors.newFixedThreadPool(Math.max(1, limits.maxInFlight()), threads);
        this.blocking = Schedulers.fromExecutorService(executor);
        this.server =
                McpServer.async(provider)
                        .serverInfo("agentbox", "1")
                        .jsonMapper(json)
                        .jsonSchemaValidator(new DefaultJsonSchemaValidator())
                        .validateToolInputs(true)
                        .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                        .tools(specifications(run, gate, client, events, clientCalls))
                        .build();
        this.sessionList = new LineFollow(fs, mailbox.sessions(), 64, this::onSession, threads);
    }

    private McpServerFeatures.AsyncToolSpecification gated(
            RunTools run,
            GatedTool.Description tool,
            ToolGate gate,
            ToolCallEvents events,
            GatedTool.Action action) {
        return new GatedTool(run.runId(), tool, gate, events, json, blocking, action)
                .specification();
    }

    /** The MCP tools: the permission prompt (when offered), HTTP tools, client tools. */
    private List<McpServerFeatures.AsyncToolSpecification> specifications(
            RunTools run,
            ToolGate gate,
            HttpToolClient client,
            ToolCallEvents events,
            ClientToolCalls clientCalls) {
        List<McpServerFeatures.AsyncToolSpecification> specs = new java.util.ArrayList<>();
        if (run.permissionPrompt()) {
            specs.add(new PermissionPrompt(run.runId(), gate, json, blocking).specification());
        }
        for (HttpTool t : run.tools()) {
            HttpToolHandler post = new HttpToolHandler(t, run.secret(), client);
            specs.add(gated(run, HttpToolHandler.description(t), gate, events, post));
        }
        ClientToolHandler answer = new ClientToolHandler(clientCalls, blocking);
        for (ClientTool t : run.clientTools()) {
            specs.add(gated(run, ClientToolHandler.description(t), gate, events, answer));
        }
        return specs;
    }

    /**
     * Starts serving {@code mailbox}: a fresh one or one another server served before (takeover).
     */
    public static ToolBridge start(
            SandboxFs fs,
            Mailbox mailbox,
            RunTools run,
            ToolGate gate,
            HttpToolClient client,
            BridgeLimits limits,
            ToolCallEvents events) {
        return start(fs, mailbox, run, gate, client, limits, events, ClientToolCalls.NONE);
    }

    /** As {@link #start}, the run's client tools answered through {@code clientCalls}. */
    public static ToolBridge start(
            SandboxFs fs,
            Mailbox mailbox,
            RunTools run,
            ToolGate gate,
            HttpToolClient client,
            BridgeLimits limits,
            ToolCallEvents events,
            ClientToolCalls clientCalls) {
        ToolBridge b = new ToolBridge(fs, mailbox, run, gate, client, limits, events, clientCalls);
        b.sessionList.start();
        return b;
    }

    /**
     * Makes the mailbox of a run about to start, before its agent can spawn a relay: the directory
     * and an empty session list (never over one that exists: relays append to it).
     */
    public static void prepare(SandboxFs fs, Mailbox mailbox) {
        fs.mkdir(mailbox.dir());
        if (!fs.exists(mailbox.sessions())) {
            fs.write(mailbox.sessions(), new byte[0]);
        }
    }

    /**
     * A session named in the list. At most {@code maxSessions} are followed at once; later ones
     * wait (up to {@value #MAX_WAITING}, then they are ignored) until one ends. Synchronized with
     * {@link #onEnded}: the list and the sessions are followed on different threads.
     */
    private synchronized void onSession(String name) {
        if (closed
                || name == null
                || !Mailbox.validSession(name)
                || sessions.containsKey(name)
                || ended.contains(name)
                || waiting.contains(name)) {
            return;
        }
        if (sessions.size() >= counts.limits().maxSessions()) {
            if (waiting.size() < MAX_WAITING) {
                waiting.add(name);
                return;
            }
            LOG.warning(
                    "tool bridge of run "
                            + run.runId()
                            + ": session "
                            + name
                            + " ignored, the run has "
                            + counts.limits().maxSessions()
                            + " open and "
                            + MAX_WAITING
                            + " waiting");
            return;
        }
        BridgeSession s =
                new BridgeSession(
                        name,
                        mailbox,
                        fs,
                        run.tokenSha256(),
                        json,
                        provider,
                        counts,
                        threads,
                        this::onEnded);
        sessions.put(name, s);
        s.start();
    }

    /** A session's relay ended it: its place goes to the first waiting session. */
    private synchronized void onEnded(String name) {
        if (sessions.remove(name) == null) {
            return;
        }
        if (ended.size() < MAX_ENDED) {
            ended.add(name);
        }
        String next = waiting.poll();
        if (next != null && !closed) {
            onSession(next);
        }
    }

    /**
     * Sessions this bridge follows now (refused ones included, ended ones not), for tests and
     * diagnostics.
     */
    public int sessionCount() {
        return sessions.size();
    }

    /** Tool calls counted so far over the run's life (as read from the mailbox). */
    public int callCount() {
        return counts.total();
    }

    @Override
    public void close() {
        closed = true;
        sessionList.close();
        sessions.values().forEach(BridgeSession::close);
        server.close();
        executor.shutdownNow();
    }
}
