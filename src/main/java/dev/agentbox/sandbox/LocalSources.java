package dev.agentbox.sandbox;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;

/**
 * The rules of {@code workspace.source.type: "local"} ({@code agentbox.sources.local.*}): whether
 * it is accepted at all, the one host directory it may copy from, and how much it may copy.
 *
 * <p>Invariants: a source path — relative to the root, or absolute and under it — resolves inside
 * the root both lexically (no {@code ..} escape) and by its real path (no symlinked directory
 * leading out); with {@code enabled} but no root, every local source is refused (the server does
 * not even start: {@code SafeConfiguration}). A refusal is {@code 400 invalid-request} with {@code
 * field: workspace.source.path}; its detail repeats the path the caller sent but never the root or
 * any other host path.
 *
 * @param enabled {@code agentbox.sources.local.enabled}
 * @param root {@code agentbox.sources.local.root}: the only host directory sources are copied from
 * @param maxBytes {@code agentbox.sources.local.max-bytes}: the most bytes of regular files copied
 * @param maxFiles {@code agentbox.sources.local.max-files}: the most entries (files, directories,
 *     symlinks) copied
 */
public record LocalSources(boolean enabled, Optional<Path> root, long maxBytes, long maxFiles) {

    static final String FIELD = "workspace.source.path";
    public static final String ENABLED = "agentbox.sources.local.enabled";
    public static final String ROOT = "agentbox.sources.local.root";
    static final String MAX_BYTES = "agentbox.sources.local.max-bytes";
    static final String MAX_FILES = "agentbox.sources.local.max-files";
    static final long DEFAULT_MAX_BYTES = 256L * 1024 * 1024;
    static final long DEFAULT_MAX_FILES = 100_000;

    public LocalSources {
        if (maxBytes < 0 || maxFiles < 0) {
            throw new IllegalArgumentException(
                    MAX_BYTES + " and " + MAX_FILES + " must not be negative");
        }
        root = root.map(r -> r.toAbsolutePath().normalize());
    }

    /** Local sources refused (tests and tools). */
    public static LocalSources disabled() {
        return new LocalSources(false, Optional.empty(), DEFAULT_MAX_BYTES, DEFAULT_MAX_FILES);
    }

    public static LocalSources fromConfig(Config c) {
        return new LocalSources(
                c.getOptionalValue(ENABLED, Boolean.class).orElse(false),
                c.getOptionalValue(ROOT, String.class)
                        .map(String::strip)
                        .filter(s -> !s.isEmpty())
                        .map(Path::of),
                c.getOptionalValue(MAX_BYTES, Long.class).orElse(DEFAULT_MAX_BYTES),
                c.getOptionalValue(MAX_FILES, Long.class).orElse(DEFAULT_MAX_FILES));
    }

    /**
     * The parse-time check: local sources enabled with a root, and {@code path} lexically inside
     * it. Touches no filesystem: a resumed sandbox does not need its source any more.
     */
    void checkAccepted(String path) {
        if (!enabled) {
            throw invalid(
                    "workspace.source.type",
                    "\"local\" is disabled on this server (" + ENABLED + ")");
        }
        lexical(path);
    }

    /**
     * The directory to copy: {@link #checkAccepted} again, then the real path, which must be an
     * existing directory inside the root's real path.
     */
    Path resolve(String path) {
        checkAccepted(path);
        Path p = lexical(path);
        Path realRoot;
        try {
            realRoot = root.orElseThrow().toRealPath();
        } catch (IOException e) {
            throw invalid(FIELD, "cannot be copied: the local source root does not exist");
        }
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(p)) {
            throw invalid(FIELD, "\"" + path + "\" does not exist");
        }
        Path real;
        try {
            real = p.toRealPath();
        } catch (IOException e) {
            // A dangling symlink, or a directory on the way we may not enter.
            throw invalid(FIELD, "\"" + path + "\" does not exist or cannot be read");
        }
        if (!real.startsWith(realRoot)) {
            throw invalid(FIELD, "\"" + path + "\" leads out of the local source root");
        }
        if (!Files.isDirectory(real)) {
            throw invalid(FIELD, "\"" + path + "\" is not a directory");
        }
        return real;
    }

    /** {@code path} against the root, normalized; refused when it leaves the root. */
    private Path lexical(String path) {
        Path r =
                root.orElseThrow(
                        () ->
                                invalid(
                                        "workspace.source.type",
                                        "\"local\" is enabled but "
                                                + ROOT
                                                + " is not set on this server"));
        if (path.isBlank() || path.indexOf('\0') >= 0) {
            throw invalid(FIELD, "must name a directory under the local source root");
        }
        Path p;
        try {
            p = r.resolve(path).normalize();
        } catch (InvalidPathException e) {
            throw invalid(FIELD, "is not a valid path");
        }
        if (!p.startsWith(r)) {
            throw invalid(FIELD, "\"" + path + "\" leaves the local source root");
        }
        return p;
    }

    static ProblemException invalid(String field, String problem) {
        return new ProblemException(
                ProblemCode.INVALID_REQUEST, field + " " + problem, Map.of("field", field), null);
    }

    static ProblemException aboveCeiling(String what, long ceiling, String key) {
        return new ProblemException(
                ProblemCode.INVALID_REQUEST,
                FIELD + " holds more than " + ceiling + " " + what + " (" + key + ")",
                Map.of("field", FIELD, "ceiling", ceiling),
                null);
    }
}
