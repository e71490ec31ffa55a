package dev.agentbox.sandbox.local;

import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.spi.PathOutsideSandboxException;
import dev.agentbox.sandbox.spi.SandboxCapabilities;
import dev.agentbox.sandbox.spi.SandboxEnv;
import dev.agentbox.sandbox.spi.SandboxFs;
import dev.agentbox.sandbox.spi.SandboxGit;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxOperationException;
import dev.agentbox.sandbox.spi.SandboxPorts;
import dev.agentbox.sandbox.spi.SandboxProcesses;
import dev.agentbox.sandbox.support.ExecGit;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A folder on the host standing in for {@code /workspace}: the handle, its environment, its ports
 * (the host's loopback) and the resolution of sandbox paths that its files ({@link LocalFs}) and
 * commands ({@link LocalProcesses}) go through.
 */
final class LocalSandbox implements SandboxHandle, SandboxEnv, SandboxPorts {

    static final String VIRTUAL_ROOT = "/workspace";

    private final LocalSandboxProvider provider;
    private final String id;
    private final Path root;
    private final Path realRoot;
    private final Map<String, String> baseEnv;
    private final String journalDirectory;
    private final Map<String, String> env = new ConcurrentHashMap<>();
    private final LocalFs fs;
    private final LocalProcesses processes;
    private final ExecGit git;

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
        this.fs = new LocalFs(this, provider, root);
        this.processes = new LocalProcesses(this, provider, id, root, baseEnv);
        this.git = new ExecGit(processes);
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
        return fs;
    }

    @Override
    public SandboxProcesses process() {
        return processes;
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

    /** The variables set after creation ({@link #set}), which every later command gets. */
    Map<String, String> variables() {
        return env;
    }

    /** Local processes listen on the host itself: every port is published on its loopback. */
    @Override
    public Optional<Channel> published(int port) {
        InetSocketAddress at = address(port);
        return Optional.of(new Channel("http://127.0.0.1:" + at.getPort(), Map.of()));
    }

    @Override
    public InetSocketAddress address(int port) {
        return new InetSocketAddress(
                InetAddress.getLoopbackAddress(), SandboxPorts.checkRange(port));
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
}
