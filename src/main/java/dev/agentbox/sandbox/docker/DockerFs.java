package dev.agentbox.sandbox.docker;

import static dev.agentbox.sandbox.docker.BoundedExecs.utf8;
import static dev.agentbox.sandbox.docker.DockerSandbox.abs;

import com.github.dockerjava.api.exception.NotFoundException;
import dev.agentbox.platform.Incident;
import dev.agentbox.sandbox.channel.ChannelException;
import dev.agentbox.sandbox.channel.ChannelRead;
import dev.agentbox.sandbox.channel.ChannelRefusal;
import dev.agentbox.sandbox.channel.SandboxChannel;
import dev.agentbox.sandbox.docker.BoundedExecs.Outcome;
import dev.agentbox.sandbox.spi.FileFollow;
import dev.agentbox.sandbox.spi.FileRead;
import dev.agentbox.sandbox.spi.FileTooLargeException;
import dev.agentbox.sandbox.spi.FsEntry;
import dev.agentbox.sandbox.spi.FsStat;
import dev.agentbox.sandbox.spi.SandboxFileNotFoundException;
import dev.agentbox.sandbox.spi.SandboxFs;
import dev.agentbox.sandbox.spi.SandboxLimits;
import dev.agentbox.sandbox.spi.SandboxOperationException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The filesystem of one container: over the sandbox channel when it has one (the helper's own file
 * operations, no sandbox binary involved), otherwise small POSIX shell scripts (they work with GNU
 * coreutils and BusyBox alike) run as bounded execs, streamed reads ({@link DockerFileRead}), and a
 * tar upload for writes.
 *
 * <p>Invariants: relative paths resolve against the workspace; every script gets its paths as
 * positional parameters, never spliced into the script; a sandbox that stalls or floods an
 * operation gets an error within the internal deadline, and its command is killed; the engine's own
 * words about a refused write stay in the log.
 */
final class DockerFs implements SandboxFs {

    private static final Logger LOG = Logger.getLogger(DockerFs.class.getName());

    private final DockerSandboxProvider provider;
    private final String name;
    private final BoundedExecs execs;
    private final ProcessGroups groups;

    DockerFs(
            DockerSandboxProvider provider, String name, BoundedExecs execs, ProcessGroups groups) {
        this.provider = provider;
        this.name = name;
        this.execs = execs;
        this.groups = groups;
    }

    DockerSandboxProvider providerBean() {
        return provider;
    }

    private SandboxLimits limits() {
        return provider.limits();
    }

    private Outcome script(String script, String... args) {
        return execs.script(script, args);
    }

    /**
     * Runs {@code op} over the sandbox channel when there is one. Empty — do it the engine's way —
     * when there is none or the channel itself failed: every operation routed here is idempotent (a
     * move is not, and handles its own fallback), so doing it again is safe. The helper's refusals
     * are mapped to the same exceptions the scripts give.
     */
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

    private static RuntimeException refused(String what, String path, ChannelRefusal r) {
        if (r.code().equals("ENOENT")) {
            return new SandboxFileNotFoundException(path);
        }
        return new SandboxOperationException(
                what + " " + path, r.detail().isEmpty() ? r.code() : r.detail());
    }

    private java.time.Duration deadline() {
        return limits().internalExecTimeout();
    }

    /** Over the channel only: the engine has no push for a file. */
    @Override
    public Optional<FileFollow> follow(String path, long offset) {
        Optional<SandboxChannel> ch = provider.channels().of(name);
        if (ch.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(ch.get().follow(abs(path), offset));
        } catch (ChannelException e) {
            return Optional.empty();
        }
    }

    @Override
    public byte[] readBytes(String path) {
        FileRead read = openRead(path, limits().maxReadBytes());
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(read.size(), 1 << 20));
        try {
            read.transferTo(out);
        } catch (IOException e) {
            throw new SandboxOperationException("read " + abs(path), e.getMessage());
        }
        return out.toByteArray();
    }

    /**
     * Admission first (type and size of what a read would open: {@code stat -L}), then a bounded
     * stream; see {@link FileRead}. Over the channel both come from one request: the helper answers
     * the read with the file's stat before its bytes.
     */
    @Override
    public FileRead openRead(String path, long maxBytes) {
        String p = abs(path);
        Optional<FileRead> viaChannel = channel("read", p, ch -> channelRead(ch, p, maxBytes));
        if (viaChannel.isPresent()) {
            return viaChannel.get();
        }
        Outcome r = script("[ -e \"$1\" ] || exit 2; exec stat -L -c '%f %s' -- \"$1\"", p);
        if (r.exitCode() == 2) {
            throw new SandboxFileNotFoundException(p);
        }
        if (r.exitCode() != 0) {
            throw new SandboxOperationException("read " + p, utf8(r.stderr()));
        }
        String[] parts = utf8(r.stdout()).strip().split(" ");
        FsStat st = FsStat.fromMode(Integer.parseInt(parts[0], 16), Long.parseLong(parts[1]));
        return checkedRead(p, st, maxBytes);
    }

    /**
     * The channel's read, admitted like the engine's: what the helper refuses to open (a directory,
     * a device, a FIFO) is judged by the mode it reports, as its stat would be.
     */
    private FileRead channelRead(SandboxChannel ch, String p, long maxBytes) {
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
            return new ChannelFileRead(read, p, size, limits().internalExecTimeout());
        } catch (RuntimeException e) {
            read.close();
            throw e;
        }
    }

    /** The read of {@code p} through the engine once its stat says what it is. */
    private FileRead checkedRead(String p, FsStat st, long maxBytes) {
        return new DockerFileRead(this, p, admit(p, st, maxBytes), maxBytes);
    }

    /**
     * What may be read: only a regular file within the limit (its size is returned); anything else
     * is refused with the error its type calls for.
     */
    private static long admit(String p, FsStat st, long maxBytes) {
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

    /**
     * Starts the reading command of a {@link DockerFileRead}: wrapped, so it can be killed as a
     * group.
     */
    DockerEngine.StreamCall startRead(String pid, String path, long maxBytes) {
        // -f again right before the read narrows the window for a FIFO swapped in after the
        // stat; head -c bounds a file that grew. What remains (a swap between the two) is
        // caught by the reader's silence deadline and byte count.
        return provider.engine()
                .startStream(
                        name,
                        ProcessGroups.boundedWrapper(
                                pid,
                                List.of(
                                        "[ -f \"$1\" ] || exit 5; exec head -c "
                                                + (maxBytes + 1)
                                                + " -- \"$1\"",
                                        path)),
                        List.of("LC_ALL=C"),
                        "/");
    }

    void kill(String pid) {
        groups.killLater(pid);
    }

    String newReadId() {
        return ProcessGroups.newProcessId();
    }

    @Override
    public void write(String path, byte[] data) {
        String p = abs(path);
        if (channel(
                        "write",
                        p,
                        ch -> {
                            ch.write(p, data, 0644, deadline());
                            return true;
                        })
                .isPresent()) {
            return;
        }
        byte[] tar = TarFiles.of(java.util.Map.of(p, data));
        try {
            DockerEngine.run(
                    "copy to container",
                    () ->
                            provider.engine()
                                    .client()
                                    .copyArchiveToContainerCmd(name)
                                    .withRemotePath("/")
                                    .withNoOverwriteDirNonDir(true)
                                    .withTarInputStream(new ByteArrayInputStream(tar))
                                    .exec());
        } catch (NotFoundException e) {
            throw DockerEngine.gone(name, e);
        } catch (com.github.dockerjava.api.exception.DockerException e) {
            // The engine's response body is for the log; the caller learns which write failed.
            Incident incident =
                    Incident.log(LOG, Level.WARNING, "write " + p + " in " + name + " failed", e);
            throw new SandboxOperationException(
                    "write " + p, incident.text("the Docker engine refused the copy"));
        }
    }

    /**
     * {@code mkdir -p}, then the engine unpacks the archive ({@code PUT /archive}); it refuses an
     * entry that climbs out of {@code dir} and, with {@code copyUIDGID}, gives every file to the
     * container's user.
     */
    @Override
    public void writeArchive(String dir, InputStream tar) {
        mkdir(dir);
        String p = abs(dir);
        try {
            DockerEngine.run(
                    "copy archive to container",
                    () ->
                            provider.engine()
                                    .client()
                                    .copyArchiveToContainerCmd(name)
                                    .withRemotePath(p)
                                    .withNoOverwriteDirNonDir(true)
                                    .withCopyUIDGID(true)
                                    .withTarInputStream(tar)
                                    .exec());
        } catch (NotFoundException e) {
            throw DockerEngine.gone(name, e);
        } catch (com.github.dockerjava.api.exception.DockerException e) {
            Incident incident =
                    Incident.log(
                            LOG, Level.WARNING, "archive into " + p + " in " + name + " failed", e);
            throw new SandboxOperationException(
                    "write archive into " + p, incident.text("the Docker engine refused the copy"));
        }
    }

    @Override
    public List<FsEntry> list(String path) {
        String p = abs(path);
        Optional<byte[]> listed =
                channel("list", p, ch -> ch.list(p, limits().maxOutputBytes(), deadline()));
        if (listed.isPresent()) {
            return entries(p, utf8(listed.get()));
        }
        Outcome r =
                script(
                        "[ -e \"$1\" ] || exit 2; cd -- \"$1\" || exit 3; "
                                + "for f in * .*; do case \"$f\" in .|..) continue;; esac; "
                                + "if [ -L \"$f\" ]; then t=f; elif [ -d \"$f\" ]; then t=d; elif [ -e \"$f\" ]; then t=f; else continue; fi; "
                                + "printf '%s/%s\\0' \"$t\" \"$f\"; done",
                        p);
        if (r.exitCode() == 2) {
            throw new SandboxFileNotFoundException(p);
        }
        if (r.exitCode() != 0) {
            throw new SandboxOperationException("list " + p, utf8(r.stderr()));
        }
        return entries(p, utf8(r.stdout()));
    }

    /** Parses {@code t/name\0} entries (the script's and the helper's format alike). */
    private static List<FsEntry> entries(String p, String listing) {
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

    @Override
    public void mkdir(String path) {
        String p = abs(path);
        if (channel(
                        "mkdir",
                        p,
                        ch -> {
                            ch.mkdir(p, deadline());
                            return true;
                        })
                .isPresent()) {
            return;
        }
        Outcome r = script("mkdir -p -- \"$1\"", p);
        if (r.exitCode() != 0) {
            throw new SandboxOperationException("mkdir " + p, utf8(r.stderr()));
        }
    }

    @Override
    public void remove(String path) {
        String p = abs(path);
        if (channel(
                        "remove",
                        p,
                        ch -> {
                            ch.remove(p, deadline());
                            return true;
                        })
                .isPresent()) {
            return;
        }
        Outcome r = script("rm -rf -- \"$1\"", p);
        if (r.exitCode() != 0) {
            throw new SandboxOperationException("remove " + p, utf8(r.stderr()));
        }
    }

    @Override
    public void rename(String from, String to) {
        String f = abs(from);
        String t = abs(to);
        if (moved(f, t)) {
            return;
        }
        Outcome r =
                script(
                        "{ [ -e \"$1\" ] || [ -L \"$1\" ]; } || exit 2; "
                                + "mkdir -p -- \"$(dirname -- \"$2\")\" && mv -f -- \"$1\" \"$2\"",
                        f,
                        t);
        if (r.exitCode() == 2) {
            throw new SandboxFileNotFoundException(f);
        }
        if (r.exitCode() != 0) {
            throw new SandboxOperationException("rename " + f + " to " + t, utf8(r.stderr()));
        }
    }

    /**
     * The move over the channel; false when it must be done by {@code mv}: no channel, the channel
     * failed before the helper got the request, the target is a directory ({@code mv} moves into
     * it), or the move crosses file systems ({@code EXDEV}). A move is not idempotent, so a channel
     * that failed after sending it is an error, not a retry.
     */
    private boolean moved(String f, String t) {
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

    @Override
    public boolean exists(String path) {
        String p = abs(path);
        Optional<Boolean> viaChannel =
                channel("exists", p, ch -> ch.stat(p, true, deadline()).isPresent());
        return viaChannel.orElseGet(() -> script("[ -e \"$1\" ]", p).exitCode() == 0);
    }

    @Override
    public Optional<FsStat> lstat(String path) {
        String p = abs(path);
        Optional<Optional<FsStat>> viaChannel =
                channel(
                        "lstat",
                        p,
                        ch ->
                                ch.stat(p, false, deadline())
                                        .map(s -> FsStat.fromMode(s.mode(), s.size())));
        if (viaChannel.isPresent()) {
            return viaChannel.get();
        }
        Outcome r = script("exec stat -c '%f %s' -- \"$1\"", p);
        if (r.exitCode() == 0) {
            String[] parts = utf8(r.stdout()).strip().split(" ");
            return Optional.of(
                    FsStat.fromMode(Integer.parseInt(parts[0], 16), Long.parseLong(parts[1])));
        }
        String err = utf8(r.stderr());
        if (err.contains("No such file or directory")) {
            return Optional.empty();
        }
        throw new SandboxOperationException("lstat " + p, err);
    }
}
