package dev.agentbox.sandbox.channel;

import java.nio.charset.StandardCharsets;

/**
 * One frame read from the helper: its type and payload (at most {@link ChannelProtocol#MAX_PAYLOAD}
 * bytes).
 */
record Frame(byte type, byte[] payload) {

    String text() {
        return new String(payload, StandardCharsets.UTF_8);
    }
}
