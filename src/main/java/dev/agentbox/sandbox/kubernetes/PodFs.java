package dev.agentbox.sandbox.kubernetes;

import static dev.agentbox.sandbox.datapath.BoundedExecs.utf8;

import dev.agentbox.sandbox.datapath.BoundedExecs;
import dev.agentbox.sandbox.datapath.BoundedExecs.Outcome;
import dev.agentbox.sandbox.datapath.ChannelFs;
import dev.agentbox.sandbox.spi.FileFollow;
import dev.agentbox.sandbox.spi.FileRead;
import dev.agentbox.sandbox.spi.FsEntry;
import dev.agentbox.sandbox.spi.FsStat;
import dev.agentbox.sandbox.spi.SandboxFileNotFoundException;
import dev.agentbox.sandbox.spi.SandboxFs;
import dev.agentbox.sandbox.spi.SandboxOperationException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * A pod's files, over its channel only ({@link ChannelFs}): where Docker falls back to the engine,
 * this fails as {@link KubernetesSandbox#unreachable} says. Relative paths resolve against the
 * workspace.
 *
 * <p>Two operations are more than one request: a move the helper cannot do ({@code rename(2)} onto
 * a directory, across file systems) is {@code mv} in a bounded exec, as on Docker; an archive is
 * unpacked here, entry by entry ({@link #writeArchive}).
 */
final class PodFs implements SandboxFs {

    /** Directories whose mode is set in one script. */
    private static final int MODES_PER_SCRIPT = 100;

    private final KubernetesSandbox sandbox;
    private final BoundedExecs execs;
    private final ChannelFs channel;

    PodFs(KubernetesSandbox sandbox, BoundedExecs execs) {
        this.sandbox = sandbox;
        this.execs = execs;
        this.channel = new ChannelFs(sandbox.id(), sandbox.limits(), sandbox::channel);
    }

    private RuntimeException unreachable() {
        return sandbox.unreachable(null);
    }

    @Override
    public Optional<FileFollow> follow(String path, long offset) {
        return channel.follow(sandbox.abs(path), offset);
    }

    @Override
    public byte[] readBytes(String path) {
        FileRead read = openRead(path, sandbox.limits().maxReadBytes());
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(read.size(), 1 << 20));
        try {
            read.transferTo(out);
        } catch (IOException e) {
            throw new SandboxOperationException("read " + sandbox.abs(path), e.getMessage());
        }
        return out.toByteArray();
    }

    @Override
    public FileRead openRead(String path, long maxBytes) {
        return channel.openRead(sandbox.abs(path), maxBytes).orElseThrow(this::unreachable);
    }

    @Override
    public void write(String path, byte[] data) {
        if (!channel.write(sandbox.abs(path), data)) {
            throw unreachable();
        }
    }

    /**
     * Unpacks a tar into {@code dir}: directories, regular files with their mode, symbolic and hard
     * links. An entry that is absolute or climbs out with {@code ..} fails the write before it is
     * written (entries before it stay), as does any other entry type (a device, a FIFO), as the SPI
     * says. Files belong to the pod's user, as everything it writes.
     */
    @Override
    public void writeArchive(String dir, InputStream tar) {
        String root = sandbox.abs(dir);
        mkdir(root);
        List<String> dirModes = new ArrayList<>();
        try (TarArchiveInputStream in = new TarArchiveInputStream(tar)) {
            TarArchiveEntry e;
            while ((e = in.getNextEntry()) != null) {
                String target = root + "/" + inside(root, e.getName());
                int mode = e.getMode() & 07777;
                if (e.isDirectory()) {
                    mkdir(target);
                    dirModes.add(Integer.toOctalString(mode));
                    dirModes.add(target);
                } else if (e.isSymbolicLink()) {
                    link("ln -sfn -- \"$1\" \"$2\"", e.getLinkName(), target);
                } else if (e.isLink()) {
                    link(
                            "ln -f -- \"$1\" \"$2\"",
                            root + "/" + inside(root, e.getLinkName()),
                            target);
                } else if (SandboxFs.regularFile(e)) {
                    mkdir(parent(target));
                    if (!channel.write(target, in.readAllBytes(), mode)) {
                        throw unreachable();
                    }
                } else {
                    throw new SandboxOperationException(
                            "write archive into " + root, "unsupported entry type: " + e.getName());
                }
            }
        } catch (IOException ex) {
            throw new SandboxOperationException("write archive into " + root, ex.getMessage());
        }
        for (int i = 0; i < dirModes.size(); i += 2 * MODES_PER_SCRIPT) {
            List<String> batch =
                    dirModes.subList(i, Math.min(dirModes.size(), i + 2 * MODES_PER_SCRIPT));
            Outcome r =
                    execs.script(
                            "while [ $# -gt 1 ]; do chmod \"$1\" \"$2\" || exit 1; shift 2; done",
                            batch.toArray(String[]::new));
            if (r.exitCode() != 0) {
                throw new SandboxOperationException("write archive into " + root, utf8(r.stderr()));
            }
        }
    }

    /** {@code name} relative to the archive's root, refused when it is absolute or climbs out. */
    private static String inside(String root, String name) {
        String n = name.startsWith("./") ? name.substring(2) : name;
        while (n.endsWith("/")) {
            n = n.substring(0, n.length() - 1);
        }
        if (n.startsWith("/")) {
            throw new SandboxOperationException(
                    "write archive into " + root, "the entry " + name + " is not relative");
        }
        for (String part : n.split("/")) {
            if (part.equals("..")) {
                throw new SandboxOperationException(
                        "write archive into " + root, "the entry " + name + " climbs out of it");
            }
        }
        return n;
    }

    private static String parent(String path) {
        return path.substring(0, path.lastIndexOf('/'));
    }

    private void link(String script, String from, String at) {
        mkdir(parent(at));
        Outcome r = execs.script(script, from, at);
        if (r.exitCode() != 0) {
            throw new SandboxOperationException("link " + at, utf8(r.stderr()));
        }
    }

    @Override
    public List<FsEntry> list(String path) {
        return channel.list(sandbox.abs(path)).orElseThrow(this::unreachable);
    }

    @Override
    public void mkdir(String path) {
        if (!channel.mkdir(sandbox.abs(path))) {
            throw unreachable();
        }
    }

    @Override
    public void remove(String path) {
        if (!channel.remove(sandbox.abs(path))) {
            throw unreachable();
        }
    }

    /** The helper's {@code rename(2)}, else {@code mv} as Docker's engine path does it. */
    @Override
    public void rename(String from, String to) {
        String f = sandbox.abs(from);
        String t = sandbox.abs(to);
        if (channel.move(f, t)) {
            return;
        }
        Outcome r =
                execs.script(
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

    @Override
    public boolean exists(String path) {
        return channel.exists(sandbox.abs(path)).orElseThrow(this::unreachable);
    }

    @Override
    public Optional<FsStat> lstat(String path) {
        return channel.lstat(sandbox.abs(path)).orElseThrow(this::unreachable);
    }
}
