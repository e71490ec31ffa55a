package dev.agentbox.sandbox.datapath;

import dev.agentbox.sandbox.channel.ChannelException;
import dev.agentbox.sandbox.channel.ChannelRead;
import dev.agentbox.sandbox.channel.ChannelRefusal;
import dev.agentbox.sandbox.spi.FileRead;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;

/**
 * A streamed read of one file over the sandbox channel. The same invariants as Docker's engine
 * read: never more than {@code limit} bytes reach the destination, one frame at a time is held, and
 * a sandbox silent for {@code silence} ends the read with an error; the helper opens the file
 * non-blocking, so a FIFO swapped in after the stat is refused rather than waited on.
 */
final class ChannelFileRead implements FileRead {

    private final ChannelRead read;
    private final String path;
    private final long size;
    private final Duration silence;

    /** {@code read} admitted by its stat; this read owns its connection from now on. */
    ChannelFileRead(ChannelRead read, String path, long size, Duration silence) {
        this.read = read;
        this.path = path;
        this.size = size;
        this.silence = silence;
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public void transferTo(OutputStream out) throws IOException {
        try {
            read.transferTo(out, silence);
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
