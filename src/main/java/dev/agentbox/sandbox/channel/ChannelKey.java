package dev.agentbox.sandbox.channel;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A sandbox's channel key: the {@value #LENGTH} random bytes its TCP helper and the server share
 * (docs/sandbox-channel.md, "Authentication over TCP"). One per sandbox, so a key opens no other
 * sandbox.
 *
 * <p>Invariants: exactly {@value #LENGTH} bytes; immutable (copied in and out); never printed —
 * {@link #toString()} shows no byte of it.
 */
public final class ChannelKey {

    public static final int LENGTH = 32;

    private final byte[] bytes;

    private ChannelKey(byte[] bytes) {
        this.bytes = bytes;
    }

    /** The key of these bytes (copied). */
    public static ChannelKey of(byte[] bytes) {
        if (bytes.length != LENGTH) {
            throw new IllegalArgumentException(
                    "a channel key has " + LENGTH + " bytes, not " + bytes.length);
        }
        return new ChannelKey(bytes.clone());
    }

    /** A new key from {@code random}. */
    public static ChannelKey generate(SecureRandom random) {
        byte[] b = new byte[LENGTH];
        random.nextBytes(b);
        return new ChannelKey(b);
    }

    /** A copy of the key's bytes, e.g. to store it in the sandbox's Secret. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** HMAC-SHA256 under this key of {@code parts}, concatenated. */
    byte[] mac(byte[]... parts) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(bytes, "HmacSHA256"));
            for (byte[] p : parts) {
                mac.update(p);
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JDK", e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChannelKey k && java.security.MessageDigest.isEqual(bytes, k.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return "ChannelKey[" + LENGTH + " bytes]";
    }
}
