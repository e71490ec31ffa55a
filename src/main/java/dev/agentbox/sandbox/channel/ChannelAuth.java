package dev.agentbox.sandbox.channel;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;

/**
 * The client's half of the TCP helper's challenge-response (docs/sandbox-channel.md,
 * "Authentication over TCP"): read the helper's nonce, answer with our MAC and a nonce of ours,
 * check the helper's MAC over both nonces.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>Nothing but the answer is written before the helper has proved that it holds the key. A
 *       listener without it (a pod that got a deleted sandbox's address, which Kubernetes reuses)
 *       receives one MAC, useless on any other connection, and never a hello or a request.
 *   <li>Each header is checked for its exact type and length before its payload is read, so a
 *       hostile listener makes us read at most 32 bytes, never allocate what it claims.
 * </ul>
 */
final class ChannelAuth {

    static final byte CHALLENGE = 'N';
    static final byte ANSWER = 'A';
    static final int NONCE = 32;
    static final int MAC = 32;
    private static final byte[] CLIENT_CONTEXT =
            "agentbox-sandboxd/1 client".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HELPER_CONTEXT =
            "agentbox-sandboxd/1 helper".getBytes(StandardCharsets.US_ASCII);

    private static final SecureRandom RANDOM = new SecureRandom();

    private ChannelAuth() {}

    /** Authenticates both ends of the freshly connected {@code channel} under {@code key}. */
    static void authenticate(SocketChannel channel, ChannelKey key) throws IOException {
        byte[] nonceH = read(channel, CHALLENGE, NONCE);
        byte[] nonceC = new byte[NONCE];
        RANDOM.nextBytes(nonceC);
        ByteBuffer answer =
                ByteBuffer.allocate(5 + MAC + NONCE)
                        .put(ANSWER)
                        .putInt(MAC + NONCE)
                        .put(key.mac(CLIENT_CONTEXT, nonceH))
                        .put(nonceC)
                        .flip();
        while (answer.hasRemaining()) {
            channel.write(answer);
        }
        byte[] proof = read(channel, ANSWER, MAC);
        // Constant time: no listener may learn from our timing how much of a forged proof was
        // right.
        if (!MessageDigest.isEqual(proof, key.mac(HELPER_CONTEXT, nonceH, nonceC))) {
            throw new IOException("the helper at the address does not hold the sandbox's key");
        }
    }

    private static byte[] read(SocketChannel channel, byte type, int length) throws IOException {
        ByteBuffer head = ByteBuffer.allocate(5);
        fill(channel, head);
        if (head.get(0) != type || head.getInt(1) != length) {
            throw new ChannelConnection.ChannelProtocolException(
                    "the helper sent no " + (char) type + " frame of " + length + " bytes");
        }
        ByteBuffer payload = ByteBuffer.allocate(length);
        fill(channel, payload);
        return payload.array();
    }

    private static void fill(SocketChannel channel, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (channel.read(b) < 0) {
                // The helper closes without a word when it refuses our answer: a wrong key.
                throw new EOFException(
                        "the helper closed the connection during authentication (a wrong key?)");
            }
        }
    }
}
