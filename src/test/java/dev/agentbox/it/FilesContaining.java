package dev.agentbox.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Finds a value in the bytes of files on disk (the server's logs, its database): where a secret
 * must never be.
 */
final class FilesContaining {

    private FilesContaining() {}

    /**
     * Every regular file below {@code dir} whose bytes contain {@code needle} (UTF-8); none when
     * {@code dir} is missing.
     */
    static List<Path> find(Path dir, String needle) throws IOException {
        if (!Files.exists(dir)) {
            return List.of();
        }
        byte[] n = needle.getBytes(StandardCharsets.UTF_8);
        List<Path> hits = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                if (indexOf(Files.readAllBytes(f), n) >= 0) {
                    hits.add(f);
                }
            }
        }
        return hits;
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i <= hay.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
