package dev.agentbox.sandbox.channel;

import java.io.IOException;
import java.net.ProtocolFamily;
import java.nio.channels.SocketChannel;

/**
 * Where a sandbox's helper listens, and what makes a connection to it one the helper and the server
 * may trust: a Unix socket on the server's host ({@link UnixSocketEndpoint}, Docker), or a TCP
 * address with the sandbox's key ({@link TcpEndpoint}, a pod). It is not the connection itself
 * ({@link ChannelConnection}), which exchanges the hello once {@link #connect} has returned.
 */
sealed interface ChannelEndpoint permits UnixSocketEndpoint, TcpEndpoint {

    /** The protocol family of a {@link SocketChannel} that can reach it. */
    ProtocolFamily family();

    /**
     * Whether a connection is worth trying now, without connecting: for a socket on the host, that
     * it is there and is a socket; over TCP always (the back-off after a failure is the channel's).
     */
    boolean present();

    /**
     * Connects {@code channel} (unconnected, blocking, of {@link #family()}) and, where the
     * endpoint requires it, authenticates both ends. Nothing is written before this returns but
     * what the authentication itself sends. The caller bounds the time by closing the channel.
     */
    void connect(SocketChannel channel) throws IOException;
}
