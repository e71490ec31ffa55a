package dev.agentbox.sandbox.docker;

import dev.agentbox.sandbox.spi.FileRead;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.time.Duration;

/**
 * A streamed read of one file in a container: {@code head -c limit+1} under the pid-file wrapper,
 * its stdout copied frame by frame to the destination. Invariants: never more than {@code limit}
 * bytes reach the destination (one byte more means the file grew past the limit: the copy is
 * aborted); at most {@link DockerEngine.StreamCall#QUEUED_FRAMES} frames are held in memory;
 * whenever the copy does not end normally — the destination fails (client gone), the command is
 * silent for the internal deadline (a FIFO swapped in, a stalled {@code head}), the limit is passed
 * — the reading command's group is killed.
 */
final class DockerFileRead implements FileRead {

    private final EngineFs fs;
    private final String path;
    private final long size;
    private final long limit;

    DockerFileRead(EngineFs fs, String path, long size, long limit) {
        this.fs = fs;
        this.path = path;
        this.size = size;
        this.limit = limit;
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public void transferTo(OutputStream out) throws IOException {
        Duration silence = fs.providerBean().limits().internalExecTimeout();
        String pid = fs.newReadId();
        DockerEngine.StreamCall call = fs.startRead(pid, path, limit);
        boolean ended = false;
        try {
            long copied = 0;
            while (true) {
                byte[] b;
                try {
                    b = call.next(silence);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("read of " + path + " interrupted");
                }
                if (b == null) {
                    throw new IOException(
                            "read of "
                                    + path
                                    + " stalled: no data for "
                                    + silence.toMillis()
                                    + " ms");
                }
                if (b.length == 0) {
                    break;
                }
                if (copied + b.length > limit) {
                    throw new IOException(
                            "read of "
                                    + path
                                    + " aborted: the file grew past the limit of "
                                    + limit
                                    + " bytes");
                }
                out.write(b);
                copied += b.length;
            }
            ended = true;
            int code = fs.providerBean().engine().exitCode(call.execId());
            if (code != 0) {
                throw new IOException(
                        "read of "
                                + path
                                + " failed (exit "
                                + code
                                + "): "
                                + (code == 5
                                        ? "it is no longer a regular file"
                                        : call.stderr().strip()));
            }
        } finally {
            call.close();
            if (!ended) {
                fs.kill(pid);
            }
        }
    }
}
