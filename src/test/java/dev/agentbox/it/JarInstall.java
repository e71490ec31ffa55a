package dev.agentbox.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The Liberty installation inside the runnable jar, unpacked once beside it ({@code
 * target/jar-install/<size>-<modified>/wlp}) so that {@link JarServer}s start from it instead of
 * unpacking the jar for every start. A jar built again unpacks into a new folder.
 *
 * <p>Two test JVMs (lanes run at once) may unpack at the same time: each unpacks into a folder of
 * its own and renames it into place; the loser deletes its copy and uses the winner's.
 */
final class JarInstall {

    /** The server inside the jar (its manifest's {@code Server-Name}). */
    static final String SERVER = "agentbox";

    private static Path wlp;

    /** The warm workarea servers start with; null when none could be made. */
    private static Path workarea;

    private JarInstall() {}

    /**
     * The JVM flags of a server started from here: C1 only. A test server lives a minute or two,
     * and C2's compilations of a starting server cost about as much CPU again as the start itself
     * on a 2-core machine.
     *
     * <p>No performance data ({@code -XX:-UsePerfData}), so the server is invisible to the JVM
     * attach listing: Arquillian finds the Derby IT server it deploys to by the first JVM whose
     * command line contains its name, {@code agentbox}, and would otherwise attach to one of these
     * (whose command line ends in {@code agentbox} too) when a lane beside it starts them.
     */
    static final String JVM_ARGS = "-XX:TieredStopAtLevel=1 -XX:-UsePerfData";

    /**
     * A process that runs the server in the foreground ({@code wlp/bin/server run}) from the
     * unpacked jar with its output (logs, workarea) in {@code outputDir}, unpacking the jar first
     * if this JVM has not; {@code JVM_ARGS} and {@code WLP_OUTPUT_DIR} are set. A new {@code
     * outputDir} gets a copy of the warm workarea ({@link WarmWorkarea}).
     */
    static ProcessBuilder serverRun(Path outputDir) {
        Path script = serverScript();
        WarmWorkarea.seed(workarea, outputDir.resolve(SERVER));
        ProcessBuilder pb = new ProcessBuilder(script.toString(), "run", SERVER);
        pb.environment().put("JVM_ARGS", JVM_ARGS);
        pb.environment().put("WLP_OUTPUT_DIR", outputDir.toString());
        return pb;
    }

    private static synchronized Path serverScript() {
        if (wlp == null) {
            wlp =
                    unpacked(
                            Path.of(
                                    System.getProperty(
                                            "agentbox.it.runnable-jar", "target/agentbox.jar")));
            workarea = WarmWorkarea.of(wlp, SERVER, JVM_ARGS);
        }
        return wlp.resolve("bin").resolve("server");
    }

    private static Path unpacked(Path jar) {
        try {
            Path root = jar.toAbsolutePath().getParent().resolve("jar-install");
            Path target =
                    root.resolve(Files.size(jar) + "-" + Files.getLastModifiedTime(jar).toMillis());
            if (Files.isExecutable(target.resolve("wlp/bin/server"))) {
                return target.resolve("wlp");
            }
            Files.createDirectories(root);
            Path mine = Files.createTempDirectory(root, "unpacking-");
            unzip(jar, mine);
            try {
                Files.move(mine, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException raced) {
                // Another JVM's copy got there first (a non-empty folder is never replaced).
                if (!Files.isExecutable(target.resolve("wlp/bin/server"))) {
                    throw raced;
                }
                deleteTree(mine);
            }
            return target.resolve("wlp");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot unpack " + jar, e);
        }
    }

    private static void unzip(Path jar, Path into) throws IOException {
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            Enumeration<? extends ZipEntry> entries = zip.entries();
            while (entries.hasMoreElements()) {
                ZipEntry entry = entries.nextElement();
                Path out = into.resolve(entry.getName()).normalize();
                if (!out.startsWith(into)) {
                    throw new IOException("entry outside the folder: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(out);
                    continue;
                }
                Files.createDirectories(out.getParent());
                try (InputStream in = zip.getInputStream(entry)) {
                    Files.copy(in, out);
                }
                // The launch scripts (wlp/bin/server and its siblings) are the jar's only
                // executables; ZipFile does not carry the modes.
                if (entry.getName().matches("wlp/bin/[^/.]+")) {
                    Files.setPosixFilePermissions(
                            out, PosixFilePermissions.fromString("rwxr-xr-x"));
                }
            }
        }
    }

    static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
