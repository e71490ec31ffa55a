package dev.agentbox.sandbox.channel;

import dev.agentbox.sandbox.spi.FileFollow;
import java.io.IOException;
import java.time.Duration;

/**
 * A file followed through the channel ({@code G}): one reader thread moves the helper's data frames
 * into a small bounded queue ({@link FrameQueue}). When the consumer is slow the reader blocks, the
 * socket fills and the helper stops reading the file — back-pressure all the way, at most {@link
 * #QUEUED} frames (each at most 64 KiB) held here.
 */
final class ChannelFollow implements FileFollow {

    static final int QUEUED = 16;

    private final SandboxChannel owner;
    private final ChannelConnection connection;
    private final FrameQueue frames = new FrameQueue(QUEUED);
    private volatile boolean missing;
    private volatile String reason = "";

    ChannelFollow(SandboxChannel owner, ChannelConnection connection) {
        this.owner = owner;
        this.connection = connection;
    }

    void pump() {
        try {
            while (!frames.closed()) {
                Frame f = connection.read();
                if (f.type() == ChannelProtocol.DATA) {
                    frames.put(f.payload());
                } else if (f.type() == ChannelProtocol.FAILED) {
                    ChannelRefusal r = ChannelRefusal.of(f);
                    missing = r.code().equals("ENOENT");
                    reason = "the helper refused to follow: " + r.getMessage();
                    return;
                } else {
                    throw new ChannelConnection.ChannelProtocolException(
                            "frame " + (char) f.type() + " in a follow");
                }
            }
        } catch (IOException | RuntimeException e) {
            if (!frames.closed()) {
                owner.failed(e);
                reason = "the sandbox channel ended: " + e.getMessage();
            }
        } finally {
            frames.end();
            connection.close();
        }
    }

    @Override
    public byte[] next(Duration maxWait) throws InterruptedException {
        return frames.next(maxWait);
    }

    @Override
    public boolean missing() {
        return missing;
    }

    @Override
    public String endReason() {
        return reason;
    }

    @Override
    public void close() {
        frames.close();
        connection.close();
    }
}
