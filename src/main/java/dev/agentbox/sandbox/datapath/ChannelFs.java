package dev.agentbox.sandbox.datapath;

import static dev.agentbox.sandbox.datapath.BoundedExecs.utf8;

import dev.agentbox.sandbox.channel.ChannelException;
import dev.agentbox.sandbox.channel.ChannelRead;
import dev.agentbox.sandbox.channel.ChannelRefusal;
import dev.agentbox.sandbox.channel.SandboxChannel;
import dev.agentbox.sandbox.spi.FileFollow;
import dev.agentbox.sandbox.spi.FileRead;
import dev.agentbox.sandbox.spi.FileTooLargeException;
import dev.agentbox.sandbox.spi.FsEntry;
import dev.agentbox.sandbox.spi.FsStat;
import dev.agentbox.sandbox.spi.SandboxFileNotFoundException;
import dev.agentbox.sandbox.spi.SandboxLimits;
import dev.agentbox.sandbox.spi.SandboxOperationException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A sandbox's files over its sandbox channel: the helper's own file operations, no sandbox binary
 * involved. Paths are absolute. Every method answers empty when there is no channel or the channel
 * itself failed, and the caller then does it another way (Docker: the engine's) or says why it
 * cannot: every operation routed so is idempotent, so doing it again is safe — except a move, which
 * says whether it was done and fails when the helper may have done it. The helper's refusals become
 * the same exceptions the engine's scripts give.
 */
public final class ChannelFs {

    private static final Logger LOG = Logger.getLogger(ChannelFs.class.getName());

    private final String name;
    private final SandboxLimits limits;
    private final Supplier<Optional<SandboxChannel>> channels;

    /**
     * @param name the sandbox, for messages
     * @param channels its channel when it has a usable one now
     */
    public ChannelFs(
            String name, SandboxLimits limits, Supplier<Optional<SandboxChannel>> channels) {
        this.name = name;
        this.limits = limits;
        this.channels = channels;
    }

    private <T> Optional<T> channel(String what, String path, Function<SandboxChannel, T> op) {
        Optional<SandboxChannel> ch = channels.get();
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

    public static RuntimeException refused(String what, String path, ChannelRefusal r) {
        if (r.code().equals("ENOENT")) {
            return new SandboxFileNotFoundException(path);
        }
        return new SandboxOperationException(
                what + " " + path, r.detail().isEmpty() ? r.code() : r.detail());
    }

    private Duration deadline() {
        return limits.internalExecTimeout();
    }

    /** Only the channel follows a file: an engine has no push for one. */
    public Optional<FileFollow> follow(String p, long offset) {
        Optional<SandboxChannel> ch = channels.get();
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
    public Optional<FileRead> openRead(String p, long maxBytes) {
        return channel("read", p, ch -> read(ch, p, maxBytes));
    }

    private FileRead read(SandboxChannel ch, String p, long maxBytes) {
        ChannelRead read;
        try {
            read = ch.openRead(p, maxBytes, deadline());
        } catch (ChannelRefusal r) {
            if (r.code().equals("EISDIR")) {
                admit(p, FsStat.fromMode(0040000, 0), maxBytes);
            } else if (r.code().equals("ENOTREG")) {
                try {
                    admit(p, FsStat.fromMode(Integer.parseInt(r.detail(), 16), 0), maxBytes);
                } catch (NumberFormatException e) {
                    throw refused("read", p, r);
                }
            }
            throw r;
        }
        try {
            long size = admit(p, FsStat.fromMode(read.stat().mode(), read.stat().size()), maxBytes);
            return new ChannelFileRead(read, p, size, deadline());
        } catch (RuntimeException e) {
            read.close();
            throw e;
        }
    }

    public boolean write(String p, byte[] data) {
        return write(p, data, 0644);
    }

    /** A write with the file's mode ({@code 0644} for a plain write). */
    public boolean write(String p, byte[] data, int mode) {
        return done("write", p, ch -> ch.write(p, data, mode, deadline()));
    }

    public Optional<List<FsEntry>> list(String p) {
        return channel("list", p, ch -> ch.list(p, limits.maxOutputBytes(), deadline()))
                .map(listed -> entries(p, utf8(listed)));
    }

    /**
     * What may be read: only a regular file within the limit (its size is returned); anything else
     * is refused with the error its type calls for.
     */
    public static long admit(String p, FsStat st, long maxBytes) {
        if (st.type() != FsStat.Type.FILE) {
            if (st.type() == FsStat.Type.DIR) {
                throw new SandboxOperationException("read " + p, "it is a directory");
            }
            throw FileTooLargeException.notRegular(
                    p, FileTooLargeException.kind(st.mode()), maxBytes);
        }
        long size = st.size().orElse(0);
        if (size > maxBytes) {
            throw FileTooLargeException.overLimit(p, size, maxBytes);
        }
        return size;
    }

    /** Parses {@code t/name\0} entries (the engine script's and the helper's format alike). */
    public static List<FsEntry> entries(String p, String listing) {
        String base = p.endsWith("/") && p.length() > 1 ? p.substring(0, p.length() - 1) : p;
        List<FsEntry> entries = new ArrayList<>();
        for (String item : listing.split("\0")) {
            if (item.length() < 3) {
                continue;
            }
            String n = item.substring(2);
            entries.add(
                    new FsEntry(
                            n,
                            (base.equals("/") ? "" : base) + "/" + n,
                            item.charAt(0) == 'd' ? FsEntry.Type.DIR : FsEntry.Type.FILE));
        }
        return entries;
    }

    public boolean mkdir(String p) {
        return done("mkdir", p, ch -> ch.mkdir(p, deadline()));
    }

    public boolean remove(String p) {
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
    public boolean move(String f, String t) {
        Optional<SandboxChannel> ch = channels.get();
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

    public Optional<Boolean> exists(String p) {
        return channel("exists", p, ch -> ch.stat(p, true, deadline()).isPresent());
    }

    public Optional<Optional<FsStat>> lstat(String p) {
        return channel(
                "lstat",
                p,
                ch -> ch.stat(p, false, deadline()).map(s -> FsStat.fromMode(s.mode(), s.size())));
    }
}
