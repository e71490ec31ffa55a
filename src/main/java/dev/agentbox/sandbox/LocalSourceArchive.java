package dev.agentbox.sandbox;

import dev.agentbox.problem.ProblemException;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

/**
 * A host directory of a {@code local} source, checked and packed into a tar archive (a temporary
 * file, deleted on {@link #close}) before any sandbox exists, so a refused source leaves nothing
 * behind.
 *
 * <p>What is copied, and what refused ({@code 400 invalid-request}, field {@code
 * workspace.source.path}; details name entries relative to the copied directory only):
 *
 * <ul>
 *   <li>directories and regular files, with their permission bits (owner read/write — and search
 *       for directories — always added, so the sandbox can work on them; setuid, setgid and sticky
 *       dropped). Hard links become separate files;
 *   <li>symlinks as symlinks, never followed: the walk does not enter them and a file is opened
 *       with {@code NOFOLLOW_LINKS}. A symlink must be relative and stay inside the copied
 *       directory — lexically, and by its real path when its target exists — else the source is
 *       refused: inside the sandbox an absolute target or one leaving the tree would name something
 *       else than on the host;
 *   <li>FIFOs, sockets and devices are refused;
 *   <li>more than {@code maxFiles} entries or {@code maxBytes} bytes of files is refused as soon as
 *       the walk counts past the limit (the walk stops there), with a {@code ceiling} member.
 * </ul>
 *
 * <p>A file is copied with the size the walk saw: a file that grew meanwhile is cut there (the byte
 * bound holds), one that shrank fails the copy. What remains is a host that swaps a directory for a
 * symlink during the copy; the root is the operator's, not the caller's.
 */
final class LocalSourceArchive implements AutoCloseable {

    /** One entry to pack, {@code name} relative with {@code /} separators. */
    private record Entry(Path path, String name, Kind kind, long size, int mode, String target) {}

    private enum Kind {
        DIR,
        FILE,
        SYMLINK
    }

    private final Path tar;
    private final long files;
    private final long bytes;

    private LocalSourceArchive(Path tar, long files, long bytes) {
        this.tar = tar;
        this.files = files;
        this.bytes = bytes;
    }

    /**
     * Checks and packs the real directory {@code dir} (from {@link LocalSources#resolve}) within
     * the limits of {@code rules}.
     */
    static LocalSourceArchive pack(Path dir, long maxBytes, long maxFiles) {
        List<Entry> entries = walk(dir, maxBytes, maxFiles);
        Path tar;
        try {
            tar = Files.createTempFile("agentbox-local-source-", ".tar");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            long bytes = write(entries, tar);
            return new LocalSourceArchive(tar, entries.size(), bytes);
        } catch (RuntimeException e) {
            deleteQuietly(tar);
            throw e;
        }
    }

    /** Entries counted, excluding the copied directory itself. */
    long files() {
        return files;
    }

    /** Bytes of regular files. */
    long bytes() {
        return bytes;
    }

    InputStream open() {
        try {
            return Files.newInputStream(tar);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        deleteQuietly(tar);
    }

    private static List<Entry> walk(Path dir, long maxBytes, long maxFiles) {
        List<Entry> entries = new ArrayList<>();
        long[] total = {0};
        try {
            // No FOLLOW_LINKS: a symlink is visited as a file with isSymbolicLink() true.
            Files.walkFileTree(
                    dir,
                    EnumSet.noneOf(FileVisitOption.class),
                    Integer.MAX_VALUE,
                    new SimpleFileVisitor<>() {
                        @Override
                        public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes a) {
                            if (!d.equals(dir)) {
                                add(new Entry(d, name(dir, d) + "/", Kind.DIR, 0, mode(d), null));
                            }
                            return FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult visitFile(Path f, BasicFileAttributes a)
                                throws IOException {
                            String n = name(dir, f);
                            if (a.isSymbolicLink()) {
                                String target = Files.readSymbolicLink(f).toString();
                                requireInside(dir, f, n, target);
                                add(new Entry(f, n, Kind.SYMLINK, 0, 0777, target));
                            } else if (a.isRegularFile()) {
                                total[0] += a.size();
                                if (total[0] > maxBytes) {
                                    throw LocalSources.aboveCeiling(
                                            "bytes", maxBytes, LocalSources.MAX_BYTES);
                                }
                                add(new Entry(f, n, Kind.FILE, a.size(), mode(f), null));
                            } else {
                                throw LocalSources.invalid(
                                        LocalSources.FIELD,
                                        "holds a FIFO, socket or device, which cannot be copied: "
                                                + n);
                            }
                            return FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult visitFileFailed(Path f, IOException e) {
                            throw unreadable(dir, f);
                        }

                        @Override
                        public FileVisitResult postVisitDirectory(Path d, IOException e) {
                            if (e != null) {
                                throw unreadable(dir, d);
                            }
                            return FileVisitResult.CONTINUE;
                        }

                        private void add(Entry e) {
                            entries.add(e);
                            if (entries.size() > maxFiles) {
                                throw LocalSources.aboveCeiling(
                                        "entries (files, directories, symlinks)",
                                        maxFiles,
                                        LocalSources.MAX_FILES);
                            }
                        }
                    });
        } catch (IOException e) {
            throw LocalSources.invalid(LocalSources.FIELD, "cannot be read");
        }
        return entries;
    }

    /**
     * A symlink at {@code link} (named {@code name}) with {@code target}: relative, and inside
     * {@code dir} lexically and — when the target exists — by its real path.
     */
    static void requireInside(Path dir, Path link, String name, String target) {
        Path t = Path.of(target);
        if (t.isAbsolute()) {
            throw outside(name);
        }
        Path resolved = link.getParent().resolve(t).normalize();
        if (!resolved.startsWith(dir)) {
            throw outside(name);
        }
        try {
            if (Files.exists(link) && !link.toRealPath().startsWith(dir)) {
                throw outside(name);
            }
        } catch (IOException e) {
            throw outside(name);
        }
    }

    private static ProblemException outside(String name) {
        return LocalSources.invalid(
                LocalSources.FIELD,
                "holds a symlink that is absolute or leads out of the copied directory: " + name);
    }

    private static ProblemException unreadable(Path dir, Path p) {
        return LocalSources.invalid(
                LocalSources.FIELD,
                "holds an entry that cannot be read: "
                        + (p.equals(dir) ? "." : dir.relativize(p).toString()));
    }

    private static String name(Path dir, Path p) {
        return dir.relativize(p).toString().replace(p.getFileSystem().getSeparator(), "/");
    }

    /** Permission bits without setuid/setgid/sticky; owner rw (rwx for directories) added. */
    private static int mode(Path p) {
        int m = 0;
        try {
            Set<PosixFilePermission> perms =
                    Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS);
            for (PosixFilePermission perm : perms) {
                m |= 1 << (8 - perm.ordinal());
            }
        } catch (IOException | UnsupportedOperationException e) {
            m = 0644;
        }
        return Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) ? m | 0700 : m | 0600;
    }

    private static long write(List<Entry> entries, Path tar) {
        long bytes = 0;
        try (OutputStream file = new BufferedOutputStream(Files.newOutputStream(tar));
                TarArchiveOutputStream out = new TarArchiveOutputStream(file)) {
            out.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            out.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
            byte[] buf = new byte[64 * 1024];
            for (Entry e : entries) {
                TarArchiveEntry t;
                switch (e.kind()) {
                    case DIR -> t = new TarArchiveEntry(e.name());
                    case SYMLINK -> {
                        t = new TarArchiveEntry(e.name(), TarConstants.LF_SYMLINK);
                        t.setLinkName(e.target());
                    }
                    default -> {
                        t = new TarArchiveEntry(e.name());
                        t.setSize(e.size());
                    }
                }
                int type =
                        switch (e.kind()) {
                            case DIR -> 040000;
                            case SYMLINK -> 0120000;
                            case FILE -> 0100000;
                        };
                t.setMode(type | e.mode());
                t.setModTime(Files.getLastModifiedTime(e.path(), LinkOption.NOFOLLOW_LINKS));
                out.putArchiveEntry(t);
                if (e.kind() == Kind.FILE) {
                    bytes += copy(e, out, buf);
                }
                out.closeArchiveEntry();
            }
            out.finish();
        } catch (ProblemException e) {
            throw e;
        } catch (IOException e) {
            throw LocalSources.invalid(
                    LocalSources.FIELD, "could not be copied (it changed or cannot be read)");
        }
        return bytes;
    }

    /** Exactly the size the walk saw, from a file opened without following a symlink. */
    private static long copy(Entry e, OutputStream out, byte[] buf) throws IOException {
        long left = e.size();
        try (InputStream in =
                Files.newInputStream(
                        e.path(), StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            while (left > 0) {
                int n = in.read(buf, 0, (int) Math.min(buf.length, left));
                if (n < 0) {
                    throw LocalSources.invalid(
                            LocalSources.FIELD, "changed while being copied: " + e.name());
                }
                out.write(buf, 0, n);
                left -= n;
            }
        } catch (AccessDeniedException denied) {
            throw LocalSources.invalid(
                    LocalSources.FIELD, "holds an entry that cannot be read: " + e.name());
        }
        return e.size();
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // A leftover temporary file; the next start's temp cleanup takes it.
        }
    }
}
