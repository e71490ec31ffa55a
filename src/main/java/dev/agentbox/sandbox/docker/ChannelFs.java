package dev.agentbox.sandbox.docker;

import static dev.agentbox.sandbox.docker.BoundedExecs.utf8;

import dev.agentbox.sandbox.channel.ChannelException;
import dev.agentbox.sandbox.channel.ChannelRead;
import dev.agentbox.sandbox.channel.ChannelRefusal;
import dev.agentbox.sandbox.channel.SandboxChannel;
import dev.agentbox.sandbox.spi.FileFollow;
import dev.agentbox.sandbox.spi.FileRead;
import dev.agentbox.sandbox.spi.FsEntry;
import dev.agentbox.sandbox.spi.FsStat;
import dev.agentbox.sandbox.spi.SandboxFileNotFoundException;
import dev.agentbox.sandbox.spi.SandboxOperationException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A container's files over its sandbox channel: the helper's own file operations, no sandbox binary
 * involved. Every method answers empty when there is no channel or the channel itself failed, and
 * {@link DockerFs} then does it the engine's way ({@link EngineFs}): every operation routed so is
 * idempotent, so doing it again is safe — except a move, which says whether it was done and fails
 * when the helper may have done it. The helper's refusals become the same exceptions the scripts
 * give.
 */
final class ChannelFs {

    private static final Logger LOG = Logger.getLogger(DockerFs.class.getName());

    private final DockerSandboxProvider provider;
    private final String name;

    ChannelFs(DockerSandboxProvider provider, String name) {
        this.provider = provider;
        this.name = name;
    }

    private <T> Optional<T> channel(String what, String path, Function<SandboxChannel, T> op) {
        Optional<SandboxChannel> ch = provider.channels().of(name);
        if (ch.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(op.apply(ch.get()));
        } catch (ChannelException e) {
            LOG.log(Level.FINE, what + " " + path + " in " + name + " over the channel", e);
            return Optional.empty();
        } catch (ChannelRefusal r) {
            throw refused(what, path, r);
        }
    }

    static RuntimeException refused(String what, String path, ChannelRefusal r) {
        if (r.code().equals("ENOENT")) {
            return new SandboxFileNotFoundException(path);
        }
        return new SandboxOperationException(
                what + " " + path, r.detail().isEmpty() ? r.code() : r.detail());
    }

    private Duration deadline() {
        return provider.limits().internalExecTimeout();
    }

    /** The engine has no push for a file: only the channel follows one. */
    Optional<FileFollow> follow(String p, long offset) {
        Optional<SandboxChannel> ch = provider.channels().of(name);
        if (ch.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(ch.get().follow(p, offset));
        } catch (ChannelException e) {
            return Optional.empty();
        }
    }

    /**
     * The read and its admission in one request (the helper answers with the file's stat before its
     * bytes), admitted like the engine's: what the helper refuses to open (a directory, a device, a
     * FIFO) is judged by the mode it reports, as its stat would be.
     */
    Optional<FileRead> openRead(String p, long maxBytes) {
        return channel("read", p, ch -> read(ch, p, maxBytes));
    }

    private FileRead read(SandboxChannel ch, String p, long maxBytes) {
        ChannelRead read;
        try {
            read = ch.openRead(p, maxBytes, deadline());
        } catch (ChannelRefusal r) {
            if (r.code().equals("EISDIR")) {
                DockerFs.admit(p, FsStat.fromMode(0040000, 0), maxBytes);
            } else if (r.code().equals("ENOTREG")) {
                try {
                    DockerFs.admit(
                            p, FsStat.fromMode(Integer.parseInt(r.detail(), 16), 0), maxBytes);
                } catch (NumberFormatException e) {
                    throw refused("read", p, r);
                }
            }
            throw r;
        }
        try {
            long size =
                    DockerFs.admit(
                            p, FsStat.fromMode(read.stat().mode(), read.stat().size()), maxBytes);
            return new ChannelFileRead(read, p, size, deadline());
        } catch (RuntimeException e) {
            read.close();
            throw e;
        }
    }

    boolean write(String p, byte[] data) {
        return done("write", p, ch -> ch.write(p, data, 0644, deadline()));
    }

    Optional<List<FsEntry>> list(String p) {
        return channel("list", p, ch -> ch.list(p, provider.limits().maxOutputBytes(), deadline()))
                .map(listed -> DockerFs.entries(p, utf8(listed)));
    }

    boolean mkdir(String p) {
        return done("mkdir", p, ch -> ch.mkdir(p, deadline()));
    }

    boolean remove(String p) {
        return done("remove", p, ch -> ch.remove(p, deadline()));
    }

    private boolean done(String what, String p, java.util.function.Consumer<SandboxChannel> op) {
        return channel(
                        what,
                        p,
                        ch -> {
                            op.accept(ch);
                            return true;
                        })
                .isPresent();
    }

    /**
     * The move; false when it must be done by {@code mv}: no channel, the channel failed before the
     * helper got the request, the target is a directory ({@code mv} moves into it), or the move
     * crosses file systems ({@code EXDEV}). A move is not idempotent, so a channel that failed
     * after sending it is an error, not a retry.
     */
    boolean move(String f, String t) {
        Optional<SandboxChannel> ch = provider.channels().of(name);
        if (ch.isEmpty()) {
            return false;
        }
        try {
            if (ch.get()
                    .stat(t, true, deadline())
                    .filter(s -> FsStat.fromMode(s.mode(), 0).type() == FsStat.Type.DIR)
                    .isPresent()) {
                // mv moves into an existing directory; rename(2) would replace or refuse it.
                return false;
            }
            ch.get().move(f, t, deadline());
            return true;
        } catch (ChannelException e) {
            if (e.requestSent()) {
                throw new SandboxOperationException("rename " + f + " to " + t, e.getMessage());
            }
            return false;
        } catch (ChannelRefusal r) {
            if (r.code().equals("EXDEV")) {
                return false;
            }
            if (r.code().equals("ENOENT")) {
                throw new SandboxFileNotFoundException(f);
            }
            throw refused("rename", f + " to " + t, r);
        }
    }

    Optional<Boolean> exists(String p) {
        return channel("exists", p, ch -> ch.stat(p, true, deadline()).isPresent());
    }

    Optional<Optional<FsStat>> lstat(String p) {
        return channel(
                "lstat",
                p,
                ch -> ch.stat(p, false, deadline()).map(s -> FsStat.fromMode(s.mode(), s.size())));
    }
}
