package dev.agentbox.sandbox.local;

import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.FileRead;
import dev.agentbox.sandbox.spi.FileTooLargeException;
import dev.agentbox.sandbox.spi.FsEntry;
import dev.agentbox.sandbox.spi.FsStat;
import dev.agentbox.sandbox.spi.OutputChunk;
import dev.agentbox.sandbox.spi.PathOutsideSandboxException;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxCapabilities;
import dev.agentbox.sandbox.spi.SandboxEnv;
import dev.agentbox.sandbox.spi.SandboxFileNotFoundException;
import dev.agentbox.sandbox.spi.SandboxFs;
import dev.agentbox.sandbox.spi.SandboxGit;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxLimits;
import dev.agentbox.sandbox.spi.SandboxOperationException;
import dev.agentbox.sandbox.spi.SandboxPorts;
import dev.agentbox.sandbox.spi.SandboxProcess;
import dev.agentbox.sandbox.spi.SandboxProcesses;
import dev.agentbox.sandbox.support.BoundedCapture;
import dev.agentbox.sandbox.support.ExecGit;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/** A folder on the host standing in for {@code /workspace}. */
final class LocalSandbox
        implements SandboxHandle, SandboxProcesses, SandboxFs, SandboxEnv, SandboxPorts {

    static final String VIRTUAL_ROOT = "/workspace";

    private final LocalSandboxProvider provider;
    private final String id;
    private final Path root;
    private final Path realRoot;
    private final Map<String, String> baseEnv;
    private final String journalDirectory;
    private final Map<String, String> env = new ConcurrentHashMap<>();
    private final ExecGit git = new ExecGit(this);

    LocalSandbox(
            LocalSandboxProvider provider,
            String id,
            Path dir,
            Map<String, String> createEnv,
            String journalDirectory) {
        this.provider = provider;
        this.id = id;
        try {
            this.realRoot = dir.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.root = realRoot;
        this.baseEnv = Map.copyOf(createEnv);
        this.journalDirectory = journalDirectory;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String provider() {
        return LocalSandboxProvider.NAME;
    }

    @Override
    public String workspaceRoot() {
        return root.toString();
    }

    /**
     * Every local sandbox runs on the same host: its tenant's directory, never the shared {@code
     * /tmp} one.
     */
    @Override
    public String journalDirectory() {
        return journalDirectory;
    }

    @Override
    public SandboxCapabilities capabilities() {
        return provider.capabilities();
    }

    @Override
    public SandboxFs fs() {
        return this;
    }

    @Override
    public SandboxProcesses process() {
        return this;
    }

    @Override
    public SandboxGit git() {
        return git;
    }

    @Override
    public SandboxPorts ports() {
        return this;
    }

    @Override
    public SandboxEnv env() {
        return this;
    }

    @Override
    public void destroy() {
        provider.destroy(id);
    }

    @Override
    public void set(Map<String, String> vars) {
        env.putAll(vars);
    }

    /** Local processes listen on the host itself: every port is published on its loopback. */
    @Override
    public Optional<Channel> published(int port) {
        InetSocketAddress at = address(port);
        return Optional.of(new Channel("http://127.0.0.1:" + at.getPort(), Map.of()));
    }

    @Override
    public InetSocketAddress address(int port) {
        if (port < 1 || port > 65535) {
            throw ProblemException.invalidRequest("port out of range: " + port);
        }
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    }

    // ---- paths ----

    /**
     * Maps a sandbox path ({@code /workspace/...}, relative, or under the real root) to the host.
     * Anything that resolves outside the root, lexically or through a symlink in an existing
     * ancestor (the last component too when {@code followLast}), is refused.
     */
    Path resolve(String path, boolean followLast) {
        if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
            throw ProblemException.notFound("Sandbox " + id + " no longer exists.");
        }
        String rel;
        if (path.equals(VIRTUAL_ROOT) || path.startsWith(VIRTUAL_ROOT + "/")) {
            rel = path.substring(VIRTUAL_ROOT.length());
        } else if (path.equals(root.toString()) || path.startsWith(root + "/")) {
            rel = path.substring(root.toString().length());
        } else if (path.startsWith("/")) {
            throw new PathOutsideSandboxException(path);
        } else {
            rel = path;
        }
        rel = rel.replaceFirst("^/+", "");
        Path p = rel.isEmpty() ? root : root.resolve(rel).normalize();
        if (!p.startsWith(root)) {
            throw new PathOutsideSandboxException(path);
        }
        if (followLast) {
            p = followLinks(p, path);
        }
        requireInsideByRealPath(followLast || p.equals(root) ? p : p.getParent(), path);
        return p;
    }

    /**
     * Follows a symlink chain at the last component lexically (dangling links too: a write would
     * create the target).
     */
    private Path followLinks(Path p, String original) {
        Path cur = p;
        for (int i = 0; i < 40 && Files.isSymbolicLink(cur); i++) {
            try {
                cur = cur.getParent().resolve(Files.readSymbolicLink(cur)).normalize();
            } catch (IOException e) {
                throw new SandboxOperationException("resolve " + original, e.toString());
            }
            if (!cur.startsWith(root)) {
                throw new PathOutsideSandboxException(original);
            }
        }
        if (!cur.equals(p)) {
            requireInsideByRealPath(cur, original);
        }
        return p;
    }

    /**
     * The deepest existing ancestor of {@code p} (itself included) must really be inside the root.
     */
    private void requireInsideByRealPath(Path p, String original) {
        Path existing = p;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        try {
            if (existing == null || !existing.toRealPath().startsWith(realRoot)) {
                throw new PathOutsideSandboxException(original);
            }
        } catch (IOException e) {
            throw new SandboxOperationException("resolve " + original, e.toString());
        }
    }

    String virtual(Path p) {
        Path rel = root.relativize(p);
        return rel.toString().isEmpty() ? VIRTUAL_ROOT : VIRTUAL_ROOT + "/" + rel;
    }

    // ---- processes ----

    /**
     * How a command starts: in a process group of its own ({@code setsid}), and with every signal
     * at its default disposition where {@code env --default-signal} exists (GNU coreutils 8.31+). A
     * server started in the background ({@code nohup … &}, a non-interactive shell) runs with
     * SIGINT and SIGQUIT ignored, exec passes an ignored signal on, and a shell cannot trap a
     * signal that was ignored when it started: an agent would never see the INT sent to it.
     */
    private static final List<String> LAUNCHER =
            defaultSignalsSupported()
                    ? List.of("setsid", "env", "--default-signal")
                    : List.of("setsid");

    private static boolean defaultSignalsSupported() {
        try {
            Process p =
                    new ProcessBuilder("env", "--default-signal", "true")
                            .redirectErrorStream(true)
                            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                            .start();
            return p.waitFor(5, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    ProcessBuilder builder(String command, ProcessOptions options) {
        Path cwd = resolve(options.cwd().orElse("."), true);
        if (!Files.isDirectory(cwd)) {
            throw new SandboxFileNotFoundException(options.cwd().orElse("."));
        }
        List<String> argv = new ArrayList<>(LAUNCHER);
        argv.addAll(List.of("sh", "-c", command));
        ProcessBuilder pb = new ProcessBuilder(argv).directory(cwd.toFile());
        Map<String, String> e = pb.environment();
        e.clear();
        e.put("PATH", System.getenv().getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin"));
        e.put("HOME", root.toString());
        e.put("LANG", "C.UTF-8");
        e.put("AGENTBOX_WORKSPACE", root.toString());
        e.putAll(baseEnv);
        e.putAll(env);
        e.putAll(options.env());
        return pb;
    }

    /**
     * Runs the command in its own process group with a deadline (its timeout, or the default) and
     * the output cap: at either, the group is killed; this thread then waits only a short grace for
     * the exit. Output past the cap is dropped as it arrives, never kept.
     */
    @Override
    public ExecResult exec(String command, ProcessOptions options) {
        SandboxLimits limits = provider.limits();
        Duration deadline = options.timeout().orElse(limits.defaultExecTimeout());
        ProcessBuilder pb =
                builder(command, options)
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        LocalProcess p = LocalProcess.start(provider, id, pb);
        BoundedCapture capture = new BoundedCapture(limits.maxOutputBytes());
        CompletableFuture<Integer> capped = new CompletableFuture<>();
        p.subscribe(
                c -> {
                    byte[] b = c.text().getBytes(StandardCharsets.UTF_8);
                    if (!capture.append(c.stream() == OutputChunk.Stream.STDERR, b, 0, b.length)) {
                        capped.complete(-1);
                    }
                });
        boolean timedOut = false;
        boolean killed = false;
        try {
            CompletableFuture.anyOf(p.onExit(), capped)
                    .get(deadline.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            timedOut = !capture.overflowed();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.kill();
            throw new IllegalStateException("interrupted while waiting for a command", e);
        } catch (ExecutionException e) {
            // the process could not be followed: its exit code below says so
        }
        if (!p.onExit().isDone()) {
            killed = true;
            p.kill();
        }
        int code;
        try {
            code = p.onExit().get(STREAM_GRACE_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            code = 137;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            code = 137;
        }
        String out = new String(capture.stdout(), StandardCharsets.UTF_8);
        String err = new String(capture.stderr(), StandardCharsets.UTF_8);
        if (timedOut && killed) {
            return new ExecResult(
                    out,
                    err
                            + "\nagentbox: command timed out after "
                            + deadline.toMillis()
                            + "ms and was killed\n",
                    ExecResult.TIMED_OUT,
                    capture.overflowed());
        }
        return new ExecResult(out, err, code, capture.overflowed());
    }

    /** How long an exec that gave up waits for the killed group's exit. */
    private static final long STREAM_GRACE_MS = 2000;

    @Override
    public SandboxProcess spawn(String command, ProcessOptions options) {
        return LocalProcess.start(provider, id, builder(command, options));
    }

    // ---- fs ----

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
        Path p = resolve(path, true);
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
        Path p = resolve(path, true);
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
        Path base = resolve(dir, true);
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
        Path p = resolve(target.toString(), false);
        Files.createDirectories(p.getParent());
        // The parent was created just now: check it again by its real path.
        p = resolve(target.toString(), false);
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
        } else if (e.isFile()) {
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
        Path p = resolve(path, true);
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
                                virtual(c),
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
            Files.createDirectories(resolve(path, true));
        } catch (IOException e) {
            throw new SandboxOperationException("mkdir " + path, e.toString());
        }
    }

    @Override
    public void remove(String path) {
        Path p = resolve(path, false);
        if (p.equals(root)) {
            throw new SandboxOperationException(
                    "remove " + path, "refusing to remove the workspace root");
        }
        LocalSandboxProvider.deleteTree(p);
    }

    @Override
    public void rename(String from, String to) {
        Path f = resolve(from, false);
        Path t = resolve(to, false);
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
        return Files.exists(resolve(path, false));
    }

    @Override
    public Optional<FsStat> lstat(String path) {
        Path p = resolve(path, false);
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
