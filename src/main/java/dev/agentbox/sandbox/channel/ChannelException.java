package dev.agentbox.sandbox.channel;

/**
 * The channel itself failed: it could not be reached, broke, spoke out of protocol, or did not
 * answer in time. {@link #requestSent()} tells a caller whether the helper may have acted on the
 * request: when it is false, the same operation can safely be done another way.
 */
public class ChannelException extends RuntimeException {

    private final boolean requestSent;

    public ChannelException(String message, boolean requestSent, Throwable cause) {
        super(message, cause);
        this.requestSent = requestSent;
    }

    public boolean requestSent() {
        return requestSent;
    }
}
