package dev.agentbox.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The workarea of a server that started once from the unpacked jar ({@code
 * target/jar-install/<jar>/workarea}): the OSGi bundle cache, the resolved features and the
 * application's scanned classes. A server whose output folder starts with a copy of it starts warm,
 * as any server does after its first start: about 14 s to ready instead of 24 on a quiet 2-core
 * machine. Test servers each get a new output folder (their own logs and database files), so
 * without this every one of the suite's few dozen jar-server starts would be a first start.
 *
 * <p>With it goes the warm-up's {@code resources/security} ({@code target/jar-install/<jar>/
 * security}): the default keystore and LTPA keys a first start generates, about 3 s of CPU (an RSA
 * key pair and its certificate) that every test server would otherwise spend again. Its password is
 * the server's {@code keystore_password} from {@code server.env}, the same for every server of the
 * jar.
 *
 * <p>Made once per jar by the first test JVM that needs it: a server is started with an in-memory
 * database until it says it is ready, stopped, and its workarea renamed into place (a JVM that
 * loses that race to another keeps the other's). When it cannot be made, servers start cold.
 */
final class WarmWorkarea {

    private static final String READY = "CWWKF0011I";

    private WarmWorkarea() {}

    /** The warm workarea beside {@code wlp}, made first if missing; null when it cannot be. */
    static Path of(Path wlp, String server, String jvmArgs) {
        Path template = wlp.getParent().resolve("workarea");
        if (Files.isDirectory(template)) {
            return template;
        }
        try {
            Path out = Files.createTempDirectory(wlp.getParent(), "warming-");
            try {
                if (warmUp(wlp, server, jvmArgs, out)) {
                    // The keys first: a workarea in place means both are.
                    moveIfAbsent(security(template), out.resolve(server).resolve(SECURITY));
                    moveIfAbsent(template, out.resolve(server).resolve("workarea"));
                }
            } finally {
                JarInstall.deleteTree(out);
            }
        } catch (IOException | RuntimeException e) {
            System.out.println("WarmWorkarea: servers start cold: " + e);
        }
        return Files.isDirectory(template) ? template : null;
    }

    private static final String SECURITY = "resources/security";

    private static Path security(Path template) {
        return template.resolveSibling("security");
    }

    private static void moveIfAbsent(Path to, Path from) {
        try {
            if (Files.isDirectory(from)) {
                Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
            }
        } catch (IOException raced) {
            // another JVM's is in place (a non-empty folder is never replaced)
        }
    }

    /**
     * Copies {@code template} into {@code serverOutput}'s workarea, and the warm-up's keys into its
     * {@code resources/security}, unless it has them.
     */
    static void seed(Path template, Path serverOutput) {
        if (template == null) {
            return;
        }
        copyIfAbsent(security(template), serverOutput.resolve(SECURITY));
        copyIfAbsent(template, serverOutput.resolve("workarea"));
    }

    private static void copyIfAbsent(Path template, Path into) {
        if (!Files.isDirectory(template) || Files.exists(into)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(template)) {
            for (Path p : paths.toList()) {
                Path to = into.resolve(template.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(p, to, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy the warm workarea into " + into, e);
        }
    }

    private static boolean warmUp(Path wlp, String server, String jvmArgs, Path out)
            throws IOException {
        Path console = out.resolve("console.log");
        ProcessBuilder pb =
                new ProcessBuilder(wlp.resolve("bin").resolve("server").toString(), "run", server)
                        .redirectErrorStream(true)
                        .redirectOutput(console.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("AGENTBOX_"));
        pb.environment().put("JVM_ARGS", jvmArgs);
        pb.environment().put("WLP_OUTPUT_DIR", out.toString());
        pb.environment().put("HTTP_PORT", String.valueOf(freePort()));
        pb.environment().put("HTTPS_PORT", String.valueOf(freePort()));
        pb.environment().put("AGENTBOX_DB_URL", "jdbc:derby:memory:warmup;create=true");
        pb.environment().put("AGENTBOX_POOL_SIZE", "0");
        long started = System.nanoTime();
        Process p = pb.start();
        List<ProcessHandle> tree = List.of();
        try {
            long deadline = started + TimeUnit.SECONDS.toNanos(300);
            while (p.isAlive() && System.nanoTime() < deadline) {
                tree = p.descendants().toList();
                if (Files.exists(console) && Files.readString(console).contains(READY)) {
                    System.out.printf(
                            "WarmWorkarea: warm-up server ready after %d ms%n",
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                    return stop(p, tree);
                }
                Thread.sleep(250);
            }
            System.out.println("WarmWorkarea: the warm-up server never got ready");
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
            tree.forEach(ProcessHandle::destroyForcibly);
        }
    }

    /** Stops the server as {@code server stop} would (SIGTERM); true once it has exited. */
    private static boolean stop(Process p, List<ProcessHandle> tree) throws InterruptedException {
        p.destroy();
        tree.forEach(ProcessHandle::destroy);
        boolean exited = p.waitFor(60, TimeUnit.SECONDS);
        for (ProcessHandle h : tree) {
            exited &= h.onExit().completeOnTimeout(null, 60, TimeUnit.SECONDS).join() != null;
        }
        return exited;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
