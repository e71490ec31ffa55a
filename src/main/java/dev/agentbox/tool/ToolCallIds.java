package dev.agentbox.tool;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The AG-UI {@code toolCallId} of a call of a run's bridged tools: {@value #PREFIX} and 16 hex
 * digits of the SHA-256 of the call's key, so every server that serves the call names it alike.
 */
public final class ToolCallIds {

    /** Reserved: no translator emits a tool call id with it. */
    public static final String PREFIX = "agentbox-tool-";

    private ToolCallIds() {}

    public static String of(String callKey) {
        try {
            byte[] h =
                    MessageDigest.getInstance("SHA-256")
                            .digest(callKey.getBytes(StandardCharsets.UTF_8));
            return PREFIX + HexFormat.of().formatHex(h, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
