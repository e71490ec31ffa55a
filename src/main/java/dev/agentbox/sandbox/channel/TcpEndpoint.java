package dev.agentbox.sandbox.channel;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.util.Objects;

/**
 * The helper listening with {@code serve-tcp} at {@code address} (a pod's IP and the helper port),
 * holding {@code key}, the sandbox's own. Every connection is authenticated both ways before the
 * hello ({@link ChannelAuth}).
 *
 * <p>Its {@code toString} shows the address only: the key never reaches a log.
 */
public record TcpEndpoint(InetSocketAddress address, ChannelKey key) implements ChannelEndpoint {

    public TcpEndpoint {
        Objects.requireNonNull(key, "key");
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("an unresolved helper address: " + address);
        }
    }

    @Override
    public ProtocolFamily family() {
        return address.getAddress() instanceof Inet6Address
                ? StandardProtocolFamily.INET6
                : StandardProtocolFamily.INET;
    }

    @Override
    public boolean present() {
        return true;
    }

    @Override
    public void connect(SocketChannel channel) throws IOException {
        channel.connect(address);
        // Frames are small and each is awaited: no Nagle delay.
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        // A sandbox whose node vanished never closes its end; keep-alive ends such a connection.
        channel.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
        ChannelAuth.authenticate(channel, key);
    }

    @Override
    public String toString() {
        return "tcp://" + address.getHostString() + ":" + address.getPort();
    }
}
