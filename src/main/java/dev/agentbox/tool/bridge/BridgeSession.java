package dev.agentbox.tool.bridge;

import dev.agentbox.sandbox.spi.FsEntry;
import dev.agentbox.sandbox.spi.SandboxFs;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerSession;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadFactory;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One relay session of a run's mailbox, fed into one MCP server session.
 *
 * <p>Its {@code .in} is read from the start. The first line must be the run's token (compared in
 * constant time); a session that fails is not followed further and gets no answer at all. On a
 * takeover the {@code .out} files already written are read first: a request whose id was answered
 * is not dispatched again, except {@code initialize}, which is fed with its answer dropped so the
 * MCP session has its state back; a tool call still unanswered is dispatched again (the gate is
 * idempotent on the call key, which is the session name and the request id).
 *
 * <p>A session ends at the relay's last line ({@link #ENDED}): it is closed and its place under the
 * run's bound of sessions is given to the next one.
 *
 * <p>Tool calls are counted against the run's bounds ({@link BridgeLimits}) before they reach the
 * MCP session; one over a bound gets a JSON-RPC error at once.
 */
final class BridgeSession implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(BridgeSession.class.getName());

    /** The {@code _meta} key a tool call's key travels under, from here to the call handler. */
    static final String CALL_KEY_META = "dev.agentbox/callKey";

    static final int TOO_MANY = -32000;

    /** The line the relay appends when its stdin ends (docker/sandboxd/mcp_relay.c). */
    static final String ENDED = "{\"jsonrpc\":\"2.0\",\"method\":\"agentbox/session-ended\"}";

    private final String name;
    private final Mailbox mailbox;

    /** The SHA-256 of the run's token: the run stores only that. */
    private final byte[] tokenSha256;

    private final McpJsonMapper json;
    private final BridgeRun run;
    private final MailboxTransport transport;
    private final McpServerSession session;
    private final LineFollow follow;
    private final Consumer<String> onEnded;
    private boolean first = true;
    private volatile boolean refused;

    BridgeSession(
            String name,
            Mailbox mailbox,
            SandboxFs fs,
            byte[] tokenSha256,
            McpJsonMapper json,
            MailboxSessions sessions,
            BridgeRun run,
            ThreadFactory threads,
            Consumer<String> onEnded) {
        this.name = name;
        this.onEnded = onEnded;
        this.mailbox = mailbox;
        this.tokenSha256 = tokenSha256.clone();
        this.json = json;
        this.run = run;
        Set<String> answered = new HashSet<>();
        long next = readAnswered(fs, answered) + 1;
        this.transport = new MailboxTransport(fs, mailbox, name, json, answered, next);
        this.session = sessions.create(transport);
        this.follow =
                new LineFollow(
                        fs,
                        mailbox.in(name),
                        run.limits().maxMessageBytes(),
                        this::onLine,
                        threads);
    }

    BridgeSession start() {
        follow.start();
        return this;
    }

    boolean refused() {
        return refused;
    }

    /** The ids of the answers already in {@code .out}; returns the highest number found. */
    private long readAnswered(SandboxFs fs, Set<String> answered) {
        long max = 0;
        java.util.List<FsEntry> entries;
        try {
            entries = fs.list(mailbox.outDir(name));
        } catch (RuntimeException e) {
            return 0; // no answers yet
        }
        for (FsEntry e : entries) {
            long seq;
            try {
                seq = Long.parseLong(e.name());
            } catch (NumberFormatException notOurs) {
                continue; // a temp file of a write that never finished
            }
            max = Math.max(max, seq);
            try {
                McpSchema.JSONRPCMessage m =
                        McpSchema.deserializeJsonRpcMessage(
                                json,
                                new String(
                                        fs.readBytes(mailbox.out(name, seq)),
                                        StandardCharsets.UTF_8));
                if (m instanceof McpSchema.JSONRPCResponse r) {
                    answered.add(json.writeValueAsString(r.id()));
                }
            } catch (IOException | RuntimeException unreadable) {
                LOG.log(Level.FINE, "tool bridge: answer " + seq + " unreadable", unreadable);
            }
        }
        return max;
    }

    private void onLine(String line) {
        if (refused) {
            return;
        }
        if (first) {
            first = false;
            if (line == null || !MessageDigest.isEqual(tokenSha256, ToolBridge.sha256(line))) {
                refused = true;
                LOG.warning(
                        "tool bridge: session "
                                + name
                                + " of "
                                + mailbox.dir()
                                + " refused: its token is not the run's");
                follow.close();
            }
            return;
        }
        if (ENDED.equals(line)) {
            // The relay's stdin ended: nothing more comes, and an answer still awaited has no
            // reader. Whoever wrote the line (the relay, or the agent itself) ends only this
            // session.
            close();
            onEnded.accept(name);
            return;
        }
        if (line == null) {
            LOG.warning(
                    "tool bridge: session "
                            + name
                            + " sent a message over "
                            + run.limits().maxMessageBytes()
                            + " bytes; dropped");
            return;
        }
        McpSchema.JSONRPCMessage message;
        try {
            message = McpSchema.deserializeJsonRpcMessage(json, line);
        } catch (IOException | RuntimeException e) {
            LOG.fine("tool bridge: session " + name + " sent a line that is not JSON-RPC");
            return;
        }
        try {
            dispatch(message);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "tool bridge: session " + name + " failed a message", e);
        }
    }

    private void dispatch(McpSchema.JSONRPCMessage message) {
        if (!(message instanceof McpSchema.JSONRPCRequest request)) {
            session.handle(message).block(Duration.ofSeconds(30));
            return;
        }
        String id = transport.idJson(request.id());
        boolean answered = transport.wasAnswered(id);
        if (McpSchema.METHOD_TOOLS_CALL.equals(request.method())) {
            BridgeRun.Admission a = run.admitCall(answered);
            if (answered) {
                return; // the relay has its answer
            }
            if (a != BridgeRun.Admission.ADMITTED) {
                transport.writeError(request.id(), TOO_MANY, a.message(run.limits()));
                return;
            }
            session.handle(withCallKey(request, id)).doFinally(s -> run.callEnded()).subscribe();
            return;
        }
        if (answered) {
            if (!McpSchema.METHOD_INITIALIZE.equals(request.method())) {
                return;
            }
            transport.suppress(id); // rebuild the session's state, keep the relay's answer
        }
        session.handle(request).block(Duration.ofSeconds(30));
    }

    @SuppressWarnings("unchecked")
    private McpSchema.JSONRPCRequest withCallKey(McpSchema.JSONRPCRequest request, String id) {
        Map<String, Object> params =
                request.params() instanceof Map<?, ?> m
                        ? new LinkedHashMap<>((Map<String, Object>) m)
                        : new LinkedHashMap<>();
        Map<String, Object> meta =
                params.get("_meta") instanceof Map<?, ?> m
                        ? new LinkedHashMap<>((Map<String, Object>) m)
                        : new LinkedHashMap<>();
        meta.put(CALL_KEY_META, name + ":" + id);
        params.put("_meta", meta);
        return new McpSchema.JSONRPCRequest(
                request.jsonrpc(), request.method(), request.id(), params);
    }

    @Override
    public void close() {
        transport.closeNow();
        follow.close();
        session.close();
    }
}
