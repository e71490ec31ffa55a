package dev.agentbox.sandbox.spi;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import java.util.Map;

/**
 * A file read the server refuses: {@code 413 file-too-large}, either because the file is larger
 * than {@link SandboxLimits#maxReadBytes()} or because it is not a regular file at all (a device,
 * FIFO or socket has no size and may never end). The detail says which.
 */
public class FileTooLargeException extends ProblemException {

    public FileTooLargeException(String detail, long limit) {
        super(ProblemCode.FILE_TOO_LARGE, detail, Map.of("limit", limit), null);
    }

    public static FileTooLargeException overLimit(String path, long size, long limit) {
        return new FileTooLargeException(
                "File "
                        + path
                        + " has "
                        + size
                        + " bytes, more than the read limit of "
                        + limit
                        + " bytes (agentbox.files.max-read-bytes).",
                limit);
    }

    public static FileTooLargeException notRegular(String path, String kind, long limit) {
        return new FileTooLargeException(
                "File "
                        + path
                        + " is not a regular file ("
                        + kind
                        + "): it has no size and may never end, so it is not read.",
                limit);
    }

    /** A name for a POSIX file type ({@code S_IFMT} bits of {@code mode}). */
    public static String kind(int mode) {
        return switch (mode & 0170000) {
            case 0020000 -> "character device";
            case 0060000 -> "block device";
            case 0010000 -> "FIFO";
            case 0140000 -> "socket";
            case 0040000 -> "directory";
            case 0120000 -> "symbolic link";
            default -> "type " + Integer.toOctalString(mode & 0170000);
        };
    }
}
