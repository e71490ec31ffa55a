package dev.agentbox.sandbox.spi;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * Portable filesystem operations. Relative paths resolve against the workspace root ({@code
 * /workspace}). Missing files are {@link SandboxFileNotFoundException} ({@code 404}), other
 * failures {@link SandboxOperationException}; a path that resolves outside the sandbox is {@link
 * PathOutsideSandboxException}.
 */
public interface SandboxFs {

    /** The file as UTF-8 text (malformed bytes become U+FFFD). */
    default String read(String path) {
        return new String(readBytes(path), StandardCharsets.UTF_8);
    }

    /**
     * The file's exact bytes, read as {@link #openRead} with the provider's read limit ({@link
     * SandboxLimits#maxReadBytes()}).
     */
    byte[] readBytes(String path);

    /**
     * Admits a read of {@code path} (symlinks followed) without reading it yet: missing is {@link
     * SandboxFileNotFoundException}; a device, FIFO or socket, or a file larger than {@code
     * maxBytes}, is {@link FileTooLargeException}. Checked before anything is sent, so a refusal is
     * a clean problem response.
     */
    FileRead openRead(String path, long maxBytes);

    /** Writes the exact bytes, creating parent directories and replacing an existing file. */
    void write(String path, byte[] data);

    default void write(String path, String text) {
        write(path, text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Unpacks a tar archive into the directory {@code dir} (created if missing): directories,
     * regular files with their permission bits, and symlinks as symlinks; files are owned by the
     * sandbox's user. Entry names are relative; one that is absolute or climbs out with {@code ..}
     * fails the whole write ({@link SandboxOperationException}), as does any other entry type.
     * Where the workspace is the boundary (the local provider), a symlink whose target leaves it
     * fails too. Entries already unpacked stay: the caller destroys a sandbox whose write failed.
     */
    void writeArchive(String dir, InputStream tar);

    /**
     * Whether {@link #writeArchive} unpacks {@code entry} as a regular file. Commons Compress's
     * {@code isFile()} alone is true of any entry whose name does not end in {@code /}, a FIFO's or
     * a device's too, which the write must refuse instead.
     */
    static boolean regularFile(org.apache.commons.compress.archivers.tar.TarArchiveEntry entry) {
        return entry.isFile()
                && !entry.isFIFO()
                && !entry.isCharacterDevice()
                && !entry.isBlockDevice();
    }

    /**
     * Entries of a directory (dotfiles included, no {@code .}/{@code ..}; symlinks not followed:
     * type file).
     */
    List<FsEntry> list(String path);

    /** Recursive and idempotent. */
    void mkdir(String path);

    /** Recursive; a missing path is fine. */
    void remove(String path);

    /** Moves; a missing source is {@link SandboxFileNotFoundException}. */
    void rename(String from, String to);

    /** True if the path exists (following symlinks: a dangling link does not exist). */
    boolean exists(String path);

    /**
     * Metadata without following symlinks. Empty only when the path is confirmed missing; every
     * other failure (e.g. a file used as a directory) throws.
     */
    Optional<FsStat> lstat(String path);

    /**
     * Follows {@code path} from byte {@code offset}, pushed as it is written; empty when this
     * sandbox cannot right now (callers then follow with a process such as {@code tail -f}).
     */
    default java.util.Optional<FileFollow> follow(String path, long offset) {
        return java.util.Optional.empty();
    }
}
