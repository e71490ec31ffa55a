package dev.agentbox.sandbox.channel;

import java.io.IOException;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The helper's Unix socket as the server's host sees it (Docker: a bind-mounted folder). Its
 * permissions (0600, in a 0700 folder of the server's) are the authentication; nothing is exchanged
 * before the hello.
 *
 * <p>Invariant: only a socket is connected to, never a link to one. The sandbox can write into its
 * socket folder, so it could swap the socket for a link to some other socket of the host; lstat
 * refuses that before the connect.
 */
record UnixSocketEndpoint(Path socket) implements ChannelEndpoint {

    @Override
    public ProtocolFamily family() {
        return StandardProtocolFamily.UNIX;
    }

    @Override
    public boolean present() {
        try {
            return isSocket();
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void connect(SocketChannel channel) throws IOException {
        if (!isSocket()) {
            throw new IOException(socket + " is not a socket");
        }
        channel.connect(UnixDomainSocketAddress.of(socket));
    }

    private boolean isSocket() throws IOException {
        return Files.readAttributes(socket, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                .isOther();
    }

    @Override
    public String toString() {
        return socket.toString();
    }
}
