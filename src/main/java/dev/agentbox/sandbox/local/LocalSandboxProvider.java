package dev.agentbox.sandbox.local;

import static dev.agentbox.sandbox.spi.SandboxCapabilities.Capability.*;

import dev.agentbox.platform.DaemonThreads;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.spi.JournalNames;
import dev.agentbox.sandbox.spi.ManagedSandbox;
import dev.agentbox.sandbox.spi.SandboxCapabilities;
import dev.agentbox.sandbox.spi.SandboxCreateInput;
import dev.agentbox.sandbox.spi.SandboxExistsException;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxLabels;
import dev.agentbox.sandbox.spi.SandboxLimits;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import dev.agentbox.sandbox.spi.SandboxProvider;
import dev.agentbox.sandbox.spi.UnsupportedCapabilityException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.eclipse.microprofile.config.Config;

/**
 * Sandboxes as folders on this host: {@code <root>/<id>} is the sandbox's {@code /workspace};
 * metadata (labels, env, creation time) lives beside it in {@code
 * <root>/.agentbox/<id>.properties}, outside the workspace. Journals go to {@code
 * <root>/.agentbox-runs/<tenant>} ({@link JournalNames#tenantDirectory}): every sandbox of every
 * tenant shares the host, so each tenant gets a directory of its own; the tenant is read back from
 * the metadata's tenant label on resume. Commands run as host processes, each in its own session
 * and process group ({@code setsid}), so a kill takes the whole tree. No isolation beyond the path
 * checks of the fs API: trusted/dev use only. No snapshots, no fork, no network policy: commands
 * share the host's network whatever the policy's network says, so a policy that would confine it
 * ({@code egress}) is refused with {@code unsupported-capability} rather than silently ignored.
 */
@ApplicationScoped
public class LocalSandboxProvider implements SandboxProvider {

    public static final String NAME = "local";
    static final SandboxCapabilities CAPABILITIES =
            SandboxCapabilities.of(
                    FS,
                    EXEC,
                    ENV,
                    PORTS,
                    BACKGROUND_PROCESSES,
                    WRITABLE_STDIN,
                    KILLABLE_PROCESSES,
                    DURABLE_FILESYSTEM);
    private static final Pattern ID_OK = Pattern.compile("[a-zA-Z0-9][a-zA-Z0-9_.-]{0,100}");

    private final LocalSettings settings;
    private final SandboxLimits limits;
    private final ThreadFactory threads;
    private final Clock clock;

    /** Live processes per sandbox id, killed on destroy. */
    private final Map<String, Set<LocalProcess>> live = new ConcurrentHashMap<>();

    /** For CDI proxies only. */
    protected LocalSandboxProvider() {
        this.settings = null;
        this.limits = null;
        this.threads = null;
        this.clock = null;
    }

    @Inject
    public LocalSandboxProvider(Config config, Clock clock) {
        this(
                LocalSettings.fromConfig(config),
                SandboxLimits.fromConfig(config),
                new DaemonThreads("agentbox-local"),
                clock);
    }

    public LocalSandboxProvider(LocalSettings settings, ThreadFactory threads, Clock clock) {
        this(settings, SandboxLimits.defaults(), threads, clock);
    }

    public LocalSandboxProvider(
            LocalSettings settings, SandboxLimits limits, ThreadFactory threads, Clock clock) {
        this.settings = settings;
        this.limits = limits;
        this.threads = threads;
        this.clock = clock;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SandboxCapabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public boolean enabled() {
        return settings.enabled();
    }

    /** The root folder exists (or can be made) and is writable. */
    @Override
    public boolean available() {
        try {
            Files.createDirectories(metaDir());
            return Files.isWritable(settings.root());
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    ThreadFactory threads() {
        return threads;
    }

    /** Output caps and deadlines of every exec and read in this provider's sandboxes. */
    public SandboxLimits limits() {
        return limits;
    }

    private Path metaDir() {
        return settings.root().resolve(".agentbox");
    }

    private Path metaFile(String id) {
        return metaDir().resolve(id + ".properties");
    }

    static String folderName(String requestedId) {
        if (ID_OK.matcher(requestedId).matches()) {
            return requestedId;
        }
        String cleaned =
                requestedId.replaceAll("[^a-zA-Z0-9_.-]", "-").replaceFirst("^[^a-zA-Z0-9]+", "");
        if (cleaned.length() > 40) {
            cleaned = cleaned.substring(0, 40);
        }
        return "s-"
                + cleaned
                + "-"
                + Integer.toHexString(requestedId.hashCode())
                + Long.toHexString(
                        UUID.nameUUIDFromBytes(
                                        requestedId.getBytes(
                                                java.nio.charset.StandardCharsets.UTF_8))
                                .getLeastSignificantBits());
    }

    @Override
    public SandboxHandle create(SandboxCreateInput input) {
        if (input.image().isPresent()) {
            throw ProblemException.invalidRequest("The local provider has no images; omit image.");
        }
        if (input.policy().network() == SandboxPolicy.Network.EGRESS) {
            throw new UnsupportedCapabilityException(NAME, NETWORK_POLICY);
        }
        String id =
                input.requestedId()
                        .map(LocalSandboxProvider::folderName)
                        .orElseGet(() -> "s-" + UUID.randomUUID());
        Path dir = settings.root().resolve(id);
        try {
            Files.createDirectories(metaDir());
            Files.createDirectory(dir);
        } catch (java.nio.file.FileAlreadyExistsException e) {
            throw new SandboxExistsException(id);
        } catch (IOException e) {
            throw ProblemException.providerUnavailable(
                    "Cannot create the sandbox folder under " + settings.root(), e);
        }
        Properties meta = new Properties();
        meta.setProperty("label." + SandboxLabels.MANAGED, "true");
        input.labels().forEach((k, v) -> meta.setProperty("label." + k, v));
        meta.setProperty("createdAt", clock.instant().toString());
        input.env().forEach((k, v) -> meta.setProperty("env." + k, v));
        try (OutputStream out = Files.newOutputStream(metaFile(id))) {
            meta.store(out, "agentbox local sandbox");
        } catch (IOException e) {
            deleteTree(dir);
            throw ProblemException.providerUnavailable(
                    "Cannot write sandbox metadata under " + settings.root(), e);
        }
        return new LocalSandbox(this, id, dir, input.env(), journalDirectory(input.tenant()));
    }

    @Override
    public Optional<SandboxHandle> resume(String id) {
        if (!ID_OK.matcher(id).matches() && !id.startsWith("s-")) {
            return Optional.empty();
        }
        Path dir = settings.root().resolve(id);
        if (!dir.normalize().getParent().equals(settings.root().normalize())
                || !Files.isDirectory(dir)) {
            return Optional.empty();
        }
        Optional<Properties> meta = readMeta(id);
        if (meta.isEmpty()) {
            return Optional.empty();
        }
        Map<String, String> env = new LinkedHashMap<>();
        meta.get().stringPropertyNames().stream()
                .filter(k -> k.startsWith("env."))
                .forEach(k -> env.put(k.substring(4), meta.get().getProperty(k)));
        Optional<String> tenant =
                Optional.ofNullable(meta.get().getProperty("label." + SandboxLabels.TENANT));
        return Optional.of(new LocalSandbox(this, id, dir, env, journalDirectory(tenant)));
    }

    /** Under the root, so that journals are as private as the sandboxes and go with the root. */
    private String journalDirectory(Optional<String> tenant) {
        return JournalNames.tenantDirectory(
                settings.root().toAbsolutePath().normalize().toString(), tenant);
    }

    private Optional<Properties> readMeta(String id) {
        try (InputStream in = Files.newInputStream(metaFile(id))) {
            Properties p = new Properties();
            p.load(in);
            return Optional.of(p);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void destroy(String id) {
        Set<LocalProcess> procs = live.remove(id);
        if (procs != null) {
            procs.forEach(LocalProcess::kill);
        }
        Path dir = settings.root().resolve(id).normalize();
        if (!dir.getParent().equals(settings.root().normalize())) {
            return;
        }
        deleteTree(dir);
        try {
            Files.deleteIfExists(metaFile(id));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public List<ManagedSandbox> listManaged() {
        if (!Files.isDirectory(metaDir())) {
            return List.of();
        }
        List<ManagedSandbox> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(metaDir())) {
            for (Path f :
                    files.filter(p -> p.getFileName().toString().endsWith(".properties"))
                            .toList()) {
                String id = f.getFileName().toString().replaceFirst("\\.properties$", "");
                readMeta(id)
                        .ifPresent(
                                p -> {
                                    Map<String, String> labels = new LinkedHashMap<>();
                                    p.stringPropertyNames().stream()
                                            .filter(k -> k.startsWith("label."))
                                            .forEach(
                                                    k ->
                                                            labels.put(
                                                                    k.substring(6),
                                                                    p.getProperty(k)));
                                    out.add(
                                            new ManagedSandbox(
                                                    id,
                                                    labels,
                                                    Instant.parse(
                                                            p.getProperty(
                                                                    "createdAt",
                                                                    "1970-01-01T00:00:00Z"))));
                                });
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    void track(String id, LocalProcess p) {
        live.computeIfAbsent(id, k -> ConcurrentHashMap.newKeySet()).add(p);
        p.onExit()
                .whenComplete(
                        (c, t) -> {
                            Set<LocalProcess> s = live.get(id);
                            if (s != null) {
                                s.remove(p);
                            }
                        });
    }

    /** Deletes a tree without following symlinks. */
    static void deleteTree(Path dir) {
        if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try {
            Files.walkFileTree(
                    dir,
                    new SimpleFileVisitor<>() {
                        @Override
                        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                                throws IOException {
                            Files.deleteIfExists(file);
                            return FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult visitFileFailed(Path file, IOException exc)
                                throws IOException {
                            Files.deleteIfExists(file);
                            return FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult postVisitDirectory(Path d, IOException exc)
                                throws IOException {
                            Files.deleteIfExists(d);
                            return FileVisitResult.CONTINUE;
                        }
                    });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
