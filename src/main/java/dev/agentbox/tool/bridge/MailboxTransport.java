package dev.agentbox.tool.bridge;

import dev.agentbox.sandbox.spi.SandboxFs;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerTransport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * The MCP server session's way out: each message it sends becomes the next numbered file of the
 * session's {@code .out} directory, written by the channel's atomic write, so the relay never
 * copies half a message.
 *
 * <p>Numbering and writing happen under one lock: two answers completing at once must not take the
 * same number, and the relay copies strictly in number order, so a number must never be skipped
 * either (a failed write is retried by nobody: the session is then broken, and the relay's client
 * times out). Responses to requests a takeover re-fed only to rebuild the session's state ({@link
 * #suppress}) are dropped: the relay already has them.
 */
final class MailboxTransport implements McpServerTransport {

    private final SandboxFs fs;
    private final Mailbox mailbox;
    private final String session;
    private final McpJsonMapper json;
    private final Set<String> suppressed = new HashSet<>();
    private final Set<String> answered;
    private long nextSeq;
    private boolean closed;

    /**
     * @param answered ids (as JSON text) of the requests already answered in the mailbox; updated
     *     as this transport answers more
     * @param nextSeq the number the next message takes
     */
    MailboxTransport(
            SandboxFs fs,
            Mailbox mailbox,
            String session,
            McpJsonMapper json,
            Set<String> answered,
            long nextSeq) {
        this.fs = fs;
        this.mailbox = mailbox;
        this.session = session;
        this.json = json;
        this.answered = answered;
        this.nextSeq = nextSeq;
    }

    /** Drops the next response to request {@code idJson}: it is in the mailbox already. */
    synchronized void suppress(String idJson) {
        suppressed.add(idJson);
    }

    synchronized boolean wasAnswered(String idJson) {
        return answered.contains(idJson);
    }

    String idJson(Object id) {
        try {
            return json.writeValueAsString(id);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
        return Mono.fromRunnable(() -> write(message));
    }

    /** Writes {@code message} now, as the next numbered file (or drops a suppressed response). */
    synchronized void write(McpSchema.JSONRPCMessage message) {
        if (closed) {
            return; // this server let the run go: the next bridge answers, not a late call of ours
        }
        String id = message instanceof McpSchema.JSONRPCResponse r ? idJson(r.id()) : null;
        if (id != null && suppressed.remove(id)) {
            return;
        }
        byte[] bytes;
        try {
            bytes = json.writeValueAsBytes(message);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        fs.write(mailbox.out(session, nextSeq), bytes);
        nextSeq++;
        if (id != null) {
            answered.add(id);
        }
    }

    /** Writes a JSON-RPC error answer to request {@code id}, bypassing the MCP session. */
    void writeError(Object id, int code, String message) {
        write(
                new McpSchema.JSONRPCResponse(
                        McpSchema.JSONRPC_VERSION,
                        id,
                        null,
                        new McpSchema.JSONRPCResponse.JSONRPCError(code, message, null)));
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return json.convertValue(data, typeRef);
    }

    /** Writes nothing more, whatever completes later. */
    synchronized void closeNow() {
        closed = true;
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.empty();
    }
}
