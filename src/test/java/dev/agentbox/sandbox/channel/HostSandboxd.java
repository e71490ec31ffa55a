package dev.agentbox.sandbox.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The real {@code agentbox-sandboxd}, compiled from docker/sandboxd/ by its own build script (so
 * with the flags of the images) and run on this host as {@code serve SOCKET}, or as {@code
 * serve-tcp 127.0.0.1:PORT KEYFILE} (loopback only): supervisor, server and one handler per
 * connection, exactly as in a container. {@link #connect()} gives a client that has done what the
 * transport asks before the hello (over TCP: the challenge-response with the right key).
 *
 * <p>The sanitized flavour is the same source built with AddressSanitizer and UBSan. Its first
 * report ends the reporting process (a handler, usually: the client then only sees the connection
 * close) and is written to the helper's stderr, which is the log read by {@link
 * #sanitizerReports()}; the tests check it after every case, so no report passes unnoticed.
 * (Commands never write there: their stderr is a pipe to the client.)
 */
public final class HostSandboxd implements AutoCloseable {

    /** Each build is compiled once per test JVM: a compile costs a second or two. */
    private static final Map<String, Path> BINARIES = new ConcurrentHashMap<>();

    /** How the helper listens: {@code serve} or {@code serve-tcp}. */
    enum Transport {
        UNIX,
        TCP
    }

    private final Process supervisor;
    private final Transport transport;
    private final Path socket;
    private final int port;
    private final ChannelKey key;
    private final Path log;

    private HostSandboxd(
            Process supervisor,
            Transport transport,
            Path socket,
            int port,
            ChannelKey key,
            Path log) {
        this.supervisor = supervisor;
        this.transport = transport;
        this.socket = socket;
        this.port = port;
        this.key = key;
        this.log = log;
    }

    /**
     * Starts {@code serve DIR/sandboxd.sock}, or {@code serve-tcp} on a free loopback port with a
     * fresh key in {@code DIR/sandboxd.key}, and waits until it answers.
     */
    static HostSandboxd start(Path dir, boolean sanitized, Transport transport)
            throws IOException, InterruptedException {
        return start(
                dir,
                sanitized,
                transport,
                ChannelKey.generate(new SecureRandom()),
                transport == Transport.TCP ? freeLoopbackPort() : 0);
    }

    /**
     * The image's build as {@code serve-tcp 127.0.0.1:port} with {@code key}: a pod's helper, for
     * tests of the providers that reach one (their channel must find it, with the right key).
     */
    public static HostSandboxd startTcp(Path dir, ChannelKey key, int port)
            throws IOException, InterruptedException {
        return start(dir, false, Transport.TCP, key, port);
    }

    private static HostSandboxd start(
            Path dir, boolean sanitized, Transport transport, ChannelKey key, int port)
            throws IOException, InterruptedException {
        Path binary = binary(sanitized);
        Path socket = dir.resolve("sandboxd.sock");
        Path log = dir.resolve("sandboxd.log");
        List<String> cmd = new ArrayList<>(List.of(binary.toString()));
        if (transport == Transport.TCP) {
            Path keyFile = dir.resolve("sandboxd.key");
            Files.write(keyFile, key.bytes());
            cmd.addAll(List.of("serve-tcp", "127.0.0.1:" + port, keyFile.toString()));
        } else {
            cmd.addAll(List.of("serve", socket.toString()));
        }
        ProcessBuilder pb =
                new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        if (sanitized) {
            sanitizerOptions(pb);
        }
        HostSandboxd helper = new HostSandboxd(pb.start(), transport, socket, port, key, log);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            try (RawChannel c = helper.connect()) {
                c.hello();
                return helper;
            } catch (IOException notYet) {
                if (!helper.supervisor.isAlive() || System.nanoTime() > deadline) {
                    helper.close();
                    throw new IOException("the helper did not start: " + helper.log(), notYet);
                }
                Thread.sleep(20);
            }
        }
    }

    /** The compiled helper of that flavour (compiled on first use). */
    public static Path binary(boolean sanitized) {
        return sanitized
                ? compiled("agentbox-sandboxd-sanitized", "--sanitize")
                : compiled("agentbox-sandboxd");
    }

    /**
     * {@code docker/sandboxd/build.sh [FLAGS] target/sandboxd-host/NAME}, once per test JVM and
     * name.
     */
    static Path compiled(String name, String... flags) {
        return BINARIES.computeIfAbsent(
                name,
                n -> {
                    Path out = Path.of("target", "sandboxd-host").resolve(n).toAbsolutePath();
                    try {
                        Files.createDirectories(out.getParent());
                        List<String> cmd = new ArrayList<>();
                        cmd.add("docker/sandboxd/build.sh");
                        cmd.addAll(List.of(flags));
                        cmd.add(out.toString());
                        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
                        String output =
                                new String(
                                        p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                            throw new IllegalStateException(
                                    "compiling " + n + " failed:\n" + output);
                        }
                        return out;
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                });
    }

    /** The first report ends the process; UBSan's then ends with a SUMMARY line too. */
    static void sanitizerOptions(ProcessBuilder pb) {
        pb.environment().put("ASAN_OPTIONS", "halt_on_error=1:abort_on_error=0");
        pb.environment().put("UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1");
    }

    /**
     * A port no one listens on now. Another process could take it before the helper binds; the
     * helper's start would then fail visibly, not silently talk to a stranger (its key is checked).
     */
    public static int freeLoopbackPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** A client ready for the hello: over TCP, authenticated with the helper's key. */
    RawChannel connect() throws IOException {
        return transport == Transport.TCP
                ? RawChannel.openTcp(port).authenticate(key.bytes())
                : RawChannel.open(socket);
    }

    /** A TCP client that has done nothing yet: not even read the challenge. */
    RawChannel connectUnauthenticated() throws IOException {
        assertThat(transport).isEqualTo(Transport.TCP);
        return RawChannel.openTcp(port);
    }

    /** Where the server's own client ({@link SandboxChannel}) reaches this helper. */
    ChannelEndpoint endpoint() {
        return transport == Transport.TCP
                ? new TcpEndpoint(
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), port), key)
                : new UnixSocketEndpoint(socket);
    }

    /** The key of a TCP helper. */
    ChannelKey key() {
        return key;
    }

    /** The server process: the supervisor's only child. Handlers are the server's children. */
    ProcessHandle server() {
        List<ProcessHandle> children = supervisor.children().toList();
        assertThat(children).as("the supervisor runs one server").hasSize(1);
        return children.get(0);
    }

    boolean supervisorAlive() {
        return supervisor.isAlive();
    }

    /**
     * The helper's log when it holds a sanitizer report (AddressSanitizer, LeakSanitizer,
     * UndefinedBehaviorSanitizer), else empty.
     */
    String sanitizerReports() throws IOException {
        return sanitizerReports(log());
    }

    static String sanitizerReports(String output) {
        return output.contains("Sanitizer") || output.contains("runtime error:") ? output : "";
    }

    String log() throws IOException {
        return Files.exists(log) ? Files.readString(log) : "";
    }

    /**
     * SIGTERM to the supervisor, which forwards it to the server. Handlers still serving a
     * connection of the test are ended by pid too, so none outlives it.
     */
    @Override
    public void close() throws InterruptedException {
        List<ProcessHandle> left = supervisor.descendants().toList();
        supervisor.destroy();
        if (!supervisor.waitFor(10, TimeUnit.SECONDS)) {
            supervisor.destroyForcibly();
        }
        left.forEach(ProcessHandle::destroy);
    }
}
