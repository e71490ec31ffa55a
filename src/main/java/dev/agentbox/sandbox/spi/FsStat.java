package dev.agentbox.sandbox.spi;

import java.util.OptionalLong;

/**
 * Metadata of a path (symlinks not followed). {@code mode} is the complete POSIX mode including the
 * file-type bits (e.g. {@code 0100644}); {@code size} only for files.
 */
public record FsStat(Type type, int mode, OptionalLong size) {

    public enum Type {
        FILE("file"),
        DIR("dir"),
        SYMLINK("symlink"),
        OTHER("other");

        private final String wireName;

        Type(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }
    }

    /** Classifies a POSIX mode by its {@code S_IFMT} bits. */
    public static FsStat fromMode(int mode, long size) {
        int fmt = mode & 0170000;
        return switch (fmt) {
            case 0100000 -> new FsStat(Type.FILE, mode, OptionalLong.of(size));
            case 0040000 -> new FsStat(Type.DIR, mode, OptionalLong.empty());
            case 0120000 -> new FsStat(Type.SYMLINK, mode, OptionalLong.empty());
            default -> new FsStat(Type.OTHER, mode, OptionalLong.empty());
        };
    }
}
