package dev.agentbox.sandbox.spi;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

// Only glue around the JDK's CharsetDecoder: it keeps an incomplete character until the next piece.
/**
 * Decodes a byte stream that arrives in arbitrary pieces: a multi-byte character split across
 * pieces is carried over and reassembled; malformed input and a truncated tail at {@link #finish()}
 * become U+FFFD. No byte is ever dropped silently. Not thread-safe.
 */
final class Utf8StreamDecoder {

    private final CharsetDecoder decoder =
            StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE);
    private ByteBuffer pending = ByteBuffer.allocate(0);

    /** Decodes what can be decoded now; an incomplete trailing sequence is kept for later. */
    public String feed(byte[] bytes, int offset, int length) {
        ByteBuffer in;
        if (pending.hasRemaining()) {
            in = ByteBuffer.allocate(pending.remaining() + length);
            in.put(pending).put(bytes, offset, length).flip();
        } else {
            in = ByteBuffer.wrap(bytes, offset, length);
        }
        CharBuffer out = CharBuffer.allocate(in.remaining() + 1);
        CoderResult r = decoder.decode(in, out, false);
        if (r.isOverflow()) {
            throw new IllegalStateException("decoder overflow");
        }
        pending = in.hasRemaining() ? ByteBuffer.wrap(copyRemaining(in)) : ByteBuffer.allocate(0);
        return out.flip().toString();
    }

    public String feed(byte[] bytes) {
        return feed(bytes, 0, bytes.length);
    }

    /** End of stream: a held incomplete sequence becomes U+FFFD. */
    public String finish() {
        CharBuffer out = CharBuffer.allocate(pending.remaining() + 2);
        decoder.decode(pending, out, true);
        decoder.flush(out);
        pending = ByteBuffer.allocate(0);
        decoder.reset();
        return out.flip().toString();
    }

    private static byte[] copyRemaining(ByteBuffer b) {
        byte[] rest = new byte[b.remaining()];
        b.get(rest);
        return rest;
    }
}
