package dev.agentbox.tool.bridge;

import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import reactor.core.publisher.Mono;

/**
 * The transport provider the MCP SDK's server is built on: it hands over the session factory, so
 * the bridge can make one MCP session per relay session it authenticates. Nothing is broadcast: the
 * run's tool list is fixed for its life.
 */
final class MailboxSessions implements McpServerTransportProvider {

    private volatile McpServerSession.Factory factory;

    @Override
    public void setSessionFactory(McpServerSession.Factory sessionFactory) {
        this.factory = sessionFactory;
    }

    McpServerSession create(MailboxTransport transport) {
        McpServerSession.Factory f = factory;
        if (f == null) {
            throw new IllegalStateException("the MCP server was not built on this provider");
        }
        return f.create(transport);
    }

    @Override
    public Mono<Void> notifyClients(String method, Object params) {
        return Mono.empty();
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.empty();
    }
}
