package dev.agentbox.sandbox.channel;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The frame types and limits of the sandbox channel (docs/sandbox-channel.md): a frame is one type
 * byte, a big-endian 32-bit length and at most {@link #MAX_PAYLOAD} bytes of payload; request
 * fields are NUL-terminated strings.
 */
public final class ChannelProtocol {

    /** Sent and expected in the handshake; anything else is refused. */
    public static final String VERSION = "agentbox-sandboxd/1";

    /** Largest payload either side accepts; a larger length is a protocol error. */
    public static final int MAX_PAYLOAD = 1 << 20;

    /** Payload of one stdin or write frame; well under the limit. */
    static final int CHUNK = 256 * 1024;

    // client -> helper
    static final byte HELLO = 'H';
    static final byte EXEC = 'X';
    static final byte READ = 'R';
    static final byte WRITE = 'W';
    static final byte STAT = 'P';
    static final byte LIST = 'L';
    static final byte MKDIR = 'M';
    static final byte MOVE = 'V';
    static final byte REMOVE = 'K';
    static final byte FOLLOW = 'G';
    static final byte STDIN = 'I';
    static final byte EOF = 'Z';
    static final byte SIGNAL = 'S';

    // helper -> client
    static final byte STDOUT = 'O';
    static final byte STDERR = 'E';
    static final byte STATS = 'T';
    static final byte DATA = 'D';
    static final byte COMPLETED = 'C';
    static final byte FAILED = 'F';

    private ChannelProtocol() {}

    /** Whether the helper may send a frame of this type at all. */
    static boolean answerType(byte t) {
        return t == HELLO
                || t == STDOUT
                || t == STDERR
                || t == STATS
                || t == DATA
                || t == COMPLETED
                || t == FAILED;
    }

    /**
     * Encodes request fields, each terminated by NUL. A field holding NUL cannot be encoded (no
     * path, argument or variable can hold one either) and is refused here, before anything is sent.
     */
    static byte[] fields(List<String> fields) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String f : fields) {
            if (f.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("a channel request field holds a NUL byte");
            }
            out.writeBytes(f.getBytes(StandardCharsets.UTF_8));
            out.write(0);
        }
        if (out.size() > MAX_PAYLOAD) {
            throw new IllegalArgumentException(
                    "a channel request is larger than " + MAX_PAYLOAD + " bytes");
        }
        return out.toByteArray();
    }
}
