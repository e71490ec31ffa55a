package dev.agentbox.sandbox.docker;

import dev.agentbox.sandbox.channel.ChannelException;
import dev.agentbox.sandbox.channel.ChannelRefusal;
import dev.agentbox.sandbox.channel.SandboxChannel;
import dev.agentbox.sandbox.spi.FileRead;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;

/**
 * A streamed read of one file over the sandbox channel. The same invariants as {@link
 * DockerFileRead}: never more than {@code limit} bytes reach the destination, one frame at a time
 * is held, and a sandbox silent for {@code silence} ends the read with an error; the helper opens
 * the file non-blocking, so a FIFO swapped in after the stat is refused rather than waited on.
 */
final class ChannelFileRead implements FileRead {

    private final SandboxChannel channel;
    private final String path;
    private final long size;
    private final long limit;
    private final Duration silence;

    ChannelFileRead(SandboxChannel channel, String path, long size, long limit, Duration silence) {
        this.channel = channel;
        this.path = path;
        this.size = size;
        this.limit = limit;
        this.silence = silence;
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public void transferTo(OutputStream out) throws IOException {
        try {
            channel.read(path, limit, out, silence);
        } catch (ChannelRefusal r) {
            throw new IOException(
                    "read of "
                            + path
                            + " failed: "
                            + (r.code().equals("ENOTREG")
                                    ? "it is no longer a regular file"
                                    : r.getMessage()));
        } catch (ChannelException e) {
            throw new IOException("read of " + path + " failed: " + e.getMessage(), e);
        }
    }
}
