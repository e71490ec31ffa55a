package dev.agentbox.sandbox.docker;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * A tar archive of regular files (mode 0644, in memory) for the engine's {@code PUT /archive} at
 * {@code /}: the way files reach a container without a command line, for sandboxes without a
 * channel and for egress gateways. Paths are absolute; POSIX extensions keep long names and large
 * sizes intact.
 */
final class TarFiles {

    private TarFiles() {}

    static byte[] of(Map<String, byte[]> files) {
        int size = files.values().stream().mapToInt(b -> b.length + 1024).sum() + 1024;
        ByteArrayOutputStream tar = new ByteArrayOutputStream(size);
        try (TarArchiveOutputStream out = new TarArchiveOutputStream(tar)) {
            out.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            out.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
            for (Map.Entry<String, byte[]> f : files.entrySet()) {
                TarArchiveEntry e = new TarArchiveEntry(f.getKey().substring(1));
                e.setSize(f.getValue().length);
                e.setMode(0100644);
                e.setModTime(System.currentTimeMillis());
                out.putArchiveEntry(e);
                out.write(f.getValue());
                out.closeArchiveEntry();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return tar.toByteArray();
    }
}
