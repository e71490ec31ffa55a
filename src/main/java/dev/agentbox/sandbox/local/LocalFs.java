package dev.agentbox.sandbox.local;

import dev.agentbox.sandbox.spi.FileRead;
import dev.agentbox.sandbox.spi.FileTooLargeException;
import dev.agentbox.sandbox.spi.FsEntry;
import dev.agentbox.sandbox.spi.FsStat;
import dev.agentbox.sandbox.spi.PathOutsideSandboxException;
import dev.agentbox.sandbox.spi.SandboxFileNotFoundException;
import dev.agentbox.sandbox.spi.SandboxFs;
import dev.agentbox.sandbox.spi.SandboxOperationException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * A local sandbox's files: Java NIO on the folder that stands in for {@code /workspace}, every path
 * resolved by {@link LocalSandbox#resolve} (nothing outside the root, lexically or through a
 * symlink).
 */
final class LocalFs implements SandboxFs {

    private final LocalSandbox sandbox;
    private final LocalSandboxProvider provider;
    private final Path root;

    LocalFs(LocalSandbox sandbox, LocalSandboxProvider provider, Path root) {
        this.sandbox = sandbox;
        this.provider = provider;
        this.root = root;
    }

    @Override
    public byte[] readBytes(String path) {
        FileRead read = openRead(path, provider.limits().maxReadBytes());
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(read.size(), 1 << 20));
        try {
            read.transferTo(out);
        } catch (IOException e) {
            throw new SandboxOperationException("read " + path, e.toString());
        }
        return out.toByteArray();
    }

    /**
     * Java NIO: attributes of what a read would open (symlinks followed, inside the root only),
     * refused unless a regular file within the limit; the copy then stops at {@code maxBytes}
     * whatever the file became meanwhile. Residual risk: a FIFO swapped in between the check and
     * the open blocks the open (Java has no non-blocking open); the local provider is for one
     * trusted tenant.
     */
    @Override
    public FileRead openRead(String path, long maxBytes) {
        Path p = sandbox.resolve(path, true);
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(p, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            throw new SandboxFileNotFoundException(path);
        } catch (IOException e) {
            throw new SandboxOperationException("read " + path, e.toString());
        }
        if (a.isDirectory()) {
            throw new SandboxOperationException("read " + path, "it is a directory");
        }
        if (!a.isRegularFile()) {
            throw FileTooLargeException.notRegular(path, "device, FIFO or socket", maxBytes);
        }
        if (a.size() > maxBytes) {
            throw FileTooLargeException.overLimit(path, a.size(), maxBytes);
        }
        long size = a.size();
        return new FileRead() {
            @Override
            public long size() {
                return size;
            }

            @Override
            public void transferTo(OutputStream out) throws IOException {
                try (InputStream in = Files.newInputStream(p)) {
                    byte[] buf = new byte[64 * 1024];
                    long copied = 0;
                    int n;
                    while ((n = in.read(buf)) > 0) {
                        if (copied + n > maxBytes) {
                            throw new IOException(
                                    "read of "
                                            + path
                                            + " aborted: the file grew past the limit of "
                                            + maxBytes
                                            + " bytes");
                        }
                        out.write(buf, 0, n);
                        copied += n;
                    }
                } catch (NoSuchFileException e) {
                    throw new SandboxFileNotFoundException(path);
                }
            }
        };
    }

    @Override
    public void write(String path, byte[] data) {
        Path p = sandbox.resolve(path, true);
        try {
            Files.createDirectories(p.getParent());
            Files.write(p, data);
        } catch (IOException e) {
            throw new SandboxOperationException("write " + path, e.toString());
        }
    }

    /**
     * Unpacks on the host, entry by entry, each path checked like any other ({@link #resolve}:
     * inside the root lexically and by the real path of its parent). A file is created anew ({@code
     * CREATE_NEW} after removing what was there, so a symlink in its place is replaced, never
     * written through); a symlink must be relative and stay inside the root.
     */
    @Override
    public void writeArchive(String dir, InputStream tar) {
        Path base = sandbox.resolve(dir, true);
        try {
            Files.createDirectories(base);
            TarArchiveInputStream in = new TarArchiveInputStream(tar);
            TarArchiveEntry e;
            while ((e = in.getNextEntry()) != null) {
                unpack(base, dir, e, in);
            }
        } catch (IOException e) {
            throw new SandboxOperationException("write archive into " + dir, e.toString());
        }
    }

    private void unpack(Path base, String dir, TarArchiveEntry e, InputStream in)
            throws IOException {
        String name = e.getName();
        Path rel = Path.of(name).normalize();
        if (name.startsWith("/") || rel.startsWith("..") || rel.toString().isEmpty()) {
            throw new SandboxOperationException(
                    "write archive into " + dir, "entry leaves the directory: " + name);
        }
        Path target = base.resolve(rel).normalize();
        Path p = sandbox.resolve(target.toString(), false);
        Files.createDirectories(p.getParent());
        // The parent was created just now: check it again by its real path.
        p = sandbox.resolve(target.toString(), false);
        int perms = e.getMode() & 0777;
        if (e.isDirectory()) {
            if (!Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                Files.deleteIfExists(p);
                Files.createDirectory(p);
            }
            Files.setPosixFilePermissions(p, permissions(perms | 0700));
        } else if (e.isSymbolicLink()) {
            Path link = Path.of(e.getLinkName());
            if (link.isAbsolute() || !p.getParent().resolve(link).normalize().startsWith(root)) {
                throw new PathOutsideSandboxException(name + " -> " + e.getLinkName());
            }
            LocalSandboxProvider.deleteTree(p);
            Files.createSymbolicLink(p, link);
        } else if (SandboxFs.regularFile(e)) {
            LocalSandboxProvider.deleteTree(p);
            try (OutputStream out =
                    Files.newOutputStream(
                            p, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                in.transferTo(out);
            }
            Files.setPosixFilePermissions(p, permissions(perms | 0600));
        } else {
            throw new SandboxOperationException(
                    "write archive into " + dir, "unsupported entry type: " + name);
        }
    }

    private static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> set = EnumSet.noneOf(PosixFilePermission.class);
        for (PosixFilePermission perm : PosixFilePermission.values()) {
            if ((mode & (1 << (8 - perm.ordinal()))) != 0) {
                set.add(perm);
            }
        }
        return set;
    }

    @Override
    public List<FsEntry> list(String path) {
        Path p = sandbox.resolve(path, true);
        if (!Files.exists(p)) {
            throw new SandboxFileNotFoundException(path);
        }
        List<FsEntry> entries = new ArrayList<>();
        try (Stream<Path> s = Files.list(p)) {
            for (Path c : s.toList()) {
                boolean dir = Files.isDirectory(c, LinkOption.NOFOLLOW_LINKS);
                entries.add(
                        new FsEntry(
                                c.getFileName().toString(),
                                sandbox.virtual(c),
                                dir ? FsEntry.Type.DIR : FsEntry.Type.FILE));
            }
        } catch (IOException e) {
            throw new SandboxOperationException("list " + path, e.toString());
        }
        return entries;
    }

    @Override
    public void mkdir(String path) {
        try {
            Files.createDirectories(sandbox.resolve(path, true));
        } catch (IOException e) {
            throw new SandboxOperationException("mkdir " + path, e.toString());
        }
    }

    @Override
    public void remove(String path) {
        Path p = sandbox.resolve(path, false);
        if (p.equals(root)) {
            throw new SandboxOperationException(
                    "remove " + path, "refusing to remove the workspace root");
        }
        LocalSandboxProvider.deleteTree(p);
    }

    @Override
    public void rename(String from, String to) {
        Path f = sandbox.resolve(from, false);
        Path t = sandbox.resolve(to, false);
        if (!Files.exists(f, LinkOption.NOFOLLOW_LINKS)) {
            throw new SandboxFileNotFoundException(from);
        }
        try {
            Files.createDirectories(t.getParent());
            Files.move(f, t, StandardCopyOption.REPLACE_EXISTING);
        } catch (FileAlreadyExistsException e) {
            throw new SandboxOperationException("rename " + from + " to " + to, e.toString());
        } catch (IOException e) {
            throw new SandboxOperationException("rename " + from + " to " + to, e.toString());
        }
    }

    @Override
    public boolean exists(String path) {
        return Files.exists(sandbox.resolve(path, false));
    }

    @Override
    public Optional<FsStat> lstat(String path) {
        Path p = sandbox.resolve(path, false);
        try {
            Map<String, Object> a =
                    new LinkedHashMap<>(
                            Files.readAttributes(p, "unix:mode,size", LinkOption.NOFOLLOW_LINKS));
            return Optional.of(FsStat.fromMode((Integer) a.get("mode"), (Long) a.get("size")));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new SandboxOperationException("lstat " + path, e.toString());
        }
    }
}
