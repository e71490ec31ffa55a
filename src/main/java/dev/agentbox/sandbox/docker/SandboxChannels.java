package dev.agentbox.sandbox.docker;

import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.platform.Lazy;
import dev.agentbox.sandbox.channel.ChannelException;
import dev.agentbox.sandbox.channel.SandboxChannel;
import dev.agentbox.sandbox.datapath.CapturedExec;
import dev.agentbox.sandbox.datapath.ChannelCall;
import dev.agentbox.sandbox.datapath.ProcessGroups;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * The sandbox channels of this provider (docs/sandbox-channel.md): the host folder of the
 * per-sandbox socket folders, the channel of each container, and the choice between a channel and
 * the engine's exec for each command.
 *
 * <p>Invariants: the channel is used only on a local engine and only while the root folder is a
 * real folder owned by this server at mode 0700 (checked once; otherwise a WARN and every command
 * goes through the engine); a container whose socket is not there uses the engine — silently when
 * it never had a channel, with one WARN when its label says it should have one (a folder lost to a
 * reboot or a server with another folder); a command is started through the engine only when the
 * channel failed before the request reached the helper, so nothing ever runs twice.
 */
final class SandboxChannels {

    /** On an image: it carries the helper. */
    static final String IMAGE_LABEL = "dev.agentbox.sandboxd";

    /** On a container: it was created with a channel. */
    static final String CONTAINER_LABEL = "dev.agentbox.channel";

    static final String HELPER = "/opt/agentbox/bin/agentbox-sandboxd";
    static final String MOUNT = "/run/agentbox";
    static final String SOCKET = "sandboxd.sock";

    /** How long a create waits for a new container's helper to listen. */
    static final Duration STARTUP = Duration.ofSeconds(2);

    private static final Logger LOG = Logger.getLogger(SandboxChannels.class.getName());
    private static final int MAX_KNOWN = 10_000;

    private final DockerSandboxProvider provider;
    private final ChannelSettings settings;
    private final Map<String, SandboxChannel> channels = new ConcurrentHashMap<>();
    private final Set<String> warned = ConcurrentHashMap.newKeySet();
    private final ScheduledThreadPoolExecutor watchdog;
    private final Lazy<Boolean> ready = Lazy.of(this::check);

    SandboxChannels(DockerSandboxProvider provider, ChannelSettings settings) {
        this.provider = provider;
        this.settings = settings;
        this.watchdog =
                new ScheduledThreadPoolExecutor(1, new DaemonThreads("agentbox-channel-watchdog"));
        // Every request arms a deadline and cancels it: cancelled tasks must not pile up.
        this.watchdog.setRemoveOnCancelPolicy(true);
    }

    /** The channel is configured, the engine local and the root folder safe to use. */
    boolean enabled() {
        return ready.get();
    }

    private boolean check() {
        if (!settings.enabled()) {
            return false;
        }
        if (!provider.settings().host().startsWith("unix://")) {
            LOG.info(
                    "sandbox channel off: the Docker engine is not local ("
                            + provider.settings().host()
                            + ")");
            return false;
        }
        Path root = settings.dir();
        try {
            try {
                Files.createDirectories(root.getParent() == null ? root : root.getParent());
                Files.createDirectory(
                        root,
                        PosixFilePermissions.asFileAttribute(
                                PosixFilePermissions.fromString("rwx------")));
            } catch (FileAlreadyExistsException e) {
                // checked below
            }
            if (Files.isSymbolicLink(root) || !Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
                throw new IOException(root + " is not a folder");
            }
            Object owner = Files.getAttribute(root, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            Object self = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            if (!owner.equals(self)) {
                throw new IOException(
                        root
                                + " belongs to uid "
                                + owner
                                + ", not to this server (uid "
                                + self
                                + ")");
            }
            Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx------"));
            return true;
        } catch (IOException | RuntimeException e) {
            LOG.log(
                    Level.WARNING,
                    "sandbox channel off: its folder {0} cannot be used safely ({1}); every command goes through docker exec",
                    new Object[] {root, e.getMessage()});
            return false;
        }
    }

    /** The host folder of {@code container}'s socket: a short name, whatever the container's. */
    Path folder(String container) {
        return settings.dir().resolve(DockerSandboxProvider.sha256Hex(container).substring(0, 16));
    }

    /**
     * Creates {@code container}'s socket folder (mode 0700; handed to the container's user when it
     * is a numeric uid, so a non-root helper can listen there) and returns it, for the bind mount.
     */
    Path prepare(String container) throws IOException {
        Path dir = folder(container);
        // Never emptied here: a folder that exists may be a live container's whose name this
        // create will find taken. A left-over socket in it is replaced by the new helper.
        try {
            Files.createDirectory(
                    dir,
                    PosixFilePermissions.asFileAttribute(
                            PosixFilePermissions.fromString("rwx------")));
        } catch (FileAlreadyExistsException e) {
            if (Files.isSymbolicLink(dir) || !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                throw new IOException(dir + " is not a folder");
            }
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        }
        Optional<String> user = provider.settings().hardening().user();
        if (user.isPresent() && user.get().matches("\\d+(:\\d+)?")) {
            String[] ids = user.get().split(":");
            Files.setAttribute(
                    dir, "unix:uid", Integer.parseInt(ids[0]), LinkOption.NOFOLLOW_LINKS);
            if (ids.length > 1) {
                Files.setAttribute(
                        dir, "unix:gid", Integer.parseInt(ids[1]), LinkOption.NOFOLLOW_LINKS);
            }
        }
        return dir;
    }

    /** Waits up to {@link #STARTUP} for a new container's helper to listen; false if it did not. */
    boolean awaitListening(String container) {
        Path socket = folder(container).resolve(SOCKET);
        long until = System.nanoTime() + STARTUP.toNanos();
        while (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
            if (System.nanoTime() - until > 0) {
                LOG.log(
                        Level.WARNING,
                        "the helper of {0} did not listen within {1} ms; its commands use docker exec until it does",
                        new Object[] {container, STARTUP.toMillis()});
                return false;
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** The channel of {@code container} when it is usable now; empty = use the engine. */
    Optional<SandboxChannel> of(String container) {
        if (!enabled()) {
            return Optional.empty();
        }
        SandboxChannel ch = channels.get(container);
        if (ch == null) {
            Path socket = folder(container).resolve(SOCKET);
            if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
                warnIfExpected(container);
                return Optional.empty();
            }
            if (channels.size() >= MAX_KNOWN) {
                channels.clear(); // entries are cheap to make again; the map must stay bounded
            }
            ch =
                    channels.computeIfAbsent(
                            container,
                            c -> new SandboxChannel(c, socket, watchdog, provider.workers()));
        }
        return ch.usable() ? Optional.of(ch) : Optional.empty();
    }

    /** One WARN per container whose label promises a channel that is not there. */
    private void warnIfExpected(String container) {
        if (warned.contains(container)) {
            return;
        }
        if (warned.size() >= MAX_KNOWN) {
            warned.clear();
        }
        warned.add(container);
        try {
            Map<String, String> labels =
                    provider.engine()
                            .client()
                            .inspectContainerCmd(container)
                            .exec()
                            .getConfig()
                            .getLabels();
            if (labels != null && "1".equals(labels.get(CONTAINER_LABEL))) {
                LOG.log(
                        Level.WARNING,
                        "sandbox {0} was created with a channel but its socket folder {1} is missing on this server; its commands use docker exec",
                        new Object[] {container, folder(container)});
            }
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "inspecting " + container, e);
        }
    }

    /**
     * Starts a captured script ({@code scriptAndArgs}: a {@code /bin/sh} script, then its
     * positional parameters; {@code $0} is {@code agentbox}): through the channel when there is
     * one, else (or when the channel failed before the helper got the request) through the engine.
     * With {@code pid}, the script's process group is recorded under that name in {@link
     * ProcessGroups#PROC_DIR} while it runs, so it can be killed: by the helper itself over the
     * channel (one process, no wrapper), by {@link ProcessGroups#boundedWrapper} through the
     * engine.
     */
    CapturedExec start(
            String container,
            Optional<String> pid,
            List<String> scriptAndArgs,
            List<String> env,
            String cwd,
            long cap) {
        Optional<SandboxChannel> ch = of(container);
        if (ch.isPresent()) {
            try {
                return ChannelCall.start(ch.get(), watchdog, pid, scriptAndArgs, env, cwd, cap);
            } catch (ChannelException e) {
                // not started: the engine starts it instead
            }
        }
        return startByEngine(container, pid, scriptAndArgs, env, cwd, cap);
    }

    /** As {@link #start}, through the engine alone. */
    CapturedExec startByEngine(
            String container,
            Optional<String> pid,
            List<String> scriptAndArgs,
            List<String> env,
            String cwd,
            long cap) {
        List<String> cmd;
        if (pid.isPresent()) {
            cmd = ProcessGroups.boundedWrapper(pid.get(), scriptAndArgs);
        } else {
            cmd =
                    new java.util.ArrayList<>(
                            List.of("/bin/sh", "-c", scriptAndArgs.get(0), "agentbox"));
            cmd.addAll(scriptAndArgs.subList(1, scriptAndArgs.size()));
        }
        return provider.engine().start(container, cmd, env, cwd, cap);
    }

    /** Forgets {@code container} and removes its socket folder (after the container is gone). */
    void forget(String container) {
        SandboxChannel gone = channels.remove(container);
        if (gone != null) {
            gone.dropSpare();
        }
        warned.remove(container);
        if (enabled()) {
            deleteQuietly(folder(container));
        }
    }

    /** A folder younger than this is never pruned: its container may be being created right now. */
    static final Duration PRUNE_AFTER = Duration.ofMinutes(10);

    /**
     * Removes the socket folders that belong to none of {@code containers} (every container this
     * engine has, by name) and are older than {@link #PRUNE_AFTER}.
     */
    void prune(Set<String> containers) {
        if (!enabled()) {
            return;
        }
        Set<Path> live = new java.util.HashSet<>();
        containers.forEach(c -> live.add(folder(c)));
        long cutoff = System.currentTimeMillis() - PRUNE_AFTER.toMillis();
        try (Stream<Path> folders = Files.list(settings.dir())) {
            folders.filter(f -> !live.contains(f))
                    .filter(
                            f -> {
                                try {
                                    return Files.getLastModifiedTime(f, LinkOption.NOFOLLOW_LINKS)
                                                    .toMillis()
                                            < cutoff;
                                } catch (IOException e) {
                                    return false;
                                }
                            })
                    .forEach(SandboxChannels::deleteQuietly);
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.FINE, "pruning socket folders", e);
        }
    }

    private static void deleteQuietly(Path dir) {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        // Not following links: the sandbox could leave a link here pointing anywhere on the host.
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder())
                    .forEach(
                            p -> {
                                try {
                                    Files.deleteIfExists(p);
                                } catch (IOException e) {
                                    LOG.log(Level.FINE, "removing " + p, e);
                                }
                            });
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.FINE, "removing " + dir, e);
        }
    }

    void close() {
        watchdog.shutdownNow();
    }
}
