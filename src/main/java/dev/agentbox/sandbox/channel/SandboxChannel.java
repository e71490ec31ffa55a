package dev.agentbox.sandbox.channel;

import dev.agentbox.sandbox.spi.FileFollow;
import java.io.IOException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The channel to one sandbox's helper, through its endpoint (a Unix socket on the host, or TCP with
 * the sandbox's key: {@link ChannelEndpoint}): the requests it serves (exec, follow, stat, read,
 * write, list, mkdir, move, remove; docs/sandbox-channel.md), one connection per request, taken
 * from the spare its {@link ChannelLink} made and handshaken in the background after the previous
 * request, so a request waits for no connect and no hello. Callers ask {@link #usable()} first and
 * fall back to another way (Docker: the engine's exec) when it says no.
 *
 * <p>Invariants: every wait is bounded — the hello by {@link #HANDSHAKE}, a request by the deadline
 * its caller gives, by closing the connection from a watchdog; a helper that cannot be reached or
 * breaks the protocol makes this channel unusable for {@link #BACKOFF} (one WARN when it turns
 * unusable, one INFO when it answers again), so a dead or hostile helper costs at most one failed
 * attempt per back-off, never a hang; a failure before the request was sent is a {@link
 * ChannelException} with {@code requestSent=false}, so the caller can do the same thing another way
 * without doing it twice.
 */
public final class SandboxChannel {

    /** Longest wait for a connection and the helper's hello. */
    public static final Duration HANDSHAKE = Duration.ofSeconds(2);

    /** How long a channel that failed stays unused before it is tried again. */
    public static final Duration BACKOFF = Duration.ofSeconds(2);

    private final ChannelLink link;
    private final ScheduledExecutorService watchdog;
    private final Executor readers;

    /**
     * Over the helper's Unix socket.
     *
     * @param name the sandbox, for logs
     * @param socket the helper's socket as the host sees it
     * @param watchdog closes connections whose deadline passed
     * @param readers runs the reader loop of each exec
     */
    public SandboxChannel(
            String name, Path socket, ScheduledExecutorService watchdog, Executor readers) {
        this(name, new UnixSocketEndpoint(socket), watchdog, readers);
    }

    /**
     * Over TCP to the helper at {@code endpoint}, every connection authenticated with its key.
     *
     * @param name the sandbox, for logs
     */
    public SandboxChannel(
            String name,
            TcpEndpoint endpoint,
            ScheduledExecutorService watchdog,
            Executor readers) {
        this(name, (ChannelEndpoint) endpoint, watchdog, readers);
    }

    SandboxChannel(
            String name,
            ChannelEndpoint endpoint,
            ScheduledExecutorService watchdog,
            Executor readers) {
        this.link = new ChannelLink(name, endpoint, watchdog, readers);
        this.watchdog = watchdog;
        this.readers = readers;
    }

    /** The endpoint is present and the channel is not backing off a failure. */
    public boolean usable() {
        return link.usable();
    }

    /**
     * Whether the helper answers right now — proof that the container runs: a spare connection
     * still open says so without a round trip, else a hello on a new connection, which is then kept
     * as the spare. Quiet: a stopped container is no failure of the channel.
     */
    public boolean answers() {
        return link.answers();
    }

    /** Whether a spare connection is waiting (diagnostics and tests). */
    public boolean hasSpare() {
        return link.hasSpare();
    }

    /** Closes the spare connection (the sandbox is gone or forgotten). */
    public void dropSpare() {
        link.dropSpare();
    }

    /** Records a failure of the channel itself: unusable for {@link #BACKOFF}, logged once. */
    void failed(Throwable cause) {
        link.failed(cause);
    }

    private ChannelConnection open() {
        return link.open();
    }

    private static String describe(Throwable t) {
        return ChannelLink.describe(t);
    }

    // ---- exec ----

    /**
     * Starts {@code argv} in the sandbox: its environment is the container's plus {@code env}
     * ({@code KEY=VALUE}), its stdin a pipe when {@code stdin} (else {@code /dev/null}). Output and
     * the end reach {@code listener} on a reader thread.
     */
    public ChannelExec exec(
            List<String> argv,
            List<String> env,
            String cwd,
            boolean stdin,
            ChannelExec.Listener listener) {
        return exec(argv, env, cwd, stdin, "", listener);
    }

    /**
     * As {@link #exec(List, List, String, boolean, ChannelExec.Listener)}, and the helper writes
     * the command's process group id to {@code pidFile} (absolute; empty = none) once the group
     * exists, and removes it when the command's own process has ended.
     */
    public ChannelExec exec(
            List<String> argv,
            List<String> env,
            String cwd,
            boolean stdin,
            String pidFile,
            ChannelExec.Listener listener) {
        ChannelExec x = send(execFields(argv, env, cwd, stdin, pidFile), listener);
        try {
            readers.execute(x::pump);
        } catch (RejectedExecutionException e) {
            // Sent but never read: the helper sees the connection close and the command lives on
            // unwatched, like a dropped attach; the caller kills it by its pid file.
            x.close();
            throw new ChannelException("no thread to read the command's output", true, e);
        }
        return x;
    }

    /**
     * As {@link #exec(List, List, String, boolean, String, ChannelExec.Listener)} with stdin from
     * {@code /dev/null}, but no reader thread: the caller reads the output itself with {@link
     * ChannelExec#pumpHere}, which spares a command that ends quickly two thread hand-overs.
     */
    public ChannelExec execUnpumped(
            List<String> argv,
            List<String> env,
            String cwd,
            String pidFile,
            ChannelExec.Listener listener) {
        return send(execFields(argv, env, cwd, false, pidFile), listener);
    }

    private static List<String> execFields(
            List<String> argv, List<String> env, String cwd, boolean stdin, String pidFile) {
        List<String> fields = new ArrayList<>();
        fields.add("0");
        fields.add(cwd);
        fields.add(stdin ? "pipe" : "null");
        fields.add(pidFile);
        fields.add(Integer.toString(argv.size()));
        fields.addAll(argv);
        fields.add(Integer.toString(env.size()));
        fields.addAll(env);
        return fields;
    }

    private ChannelExec send(List<String> fields, ChannelExec.Listener listener) {
        byte[] request = ChannelProtocol.fields(fields);
        ChannelConnection c = open();
        try {
            c.send(ChannelProtocol.EXEC, request);
        } catch (IOException e) {
            c.close();
            failed(e);
            throw new ChannelException(
                    "the exec request could not be sent: " + describe(e), false, e);
        }
        return new ChannelExec(this, c, listener);
    }

    // ---- follow ----

    /**
     * Follows {@code path} from byte {@code offset}; a missing file ends the follow at once with
     * {@link FileFollow#missing()}.
     */
    public FileFollow follow(String path, long offset) {
        byte[] request = ChannelProtocol.fields(List.of(path, Long.toString(offset)));
        ChannelConnection c = open();
        try {
            c.send(ChannelProtocol.FOLLOW, request);
        } catch (IOException e) {
            c.close();
            failed(e);
            throw new ChannelException(
                    "the follow request could not be sent: " + describe(e), false, e);
        }
        ChannelFollow f = new ChannelFollow(this, c);
        try {
            readers.execute(f::pump);
        } catch (RejectedExecutionException e) {
            c.close();
            throw new ChannelException("no thread to follow " + path, false, e);
        }
        return f;
    }

    // ---- files ----

    /** How long an opened read waits to be copied before it is dropped. */
    static final Duration UNCLAIMED_READ = Duration.ofSeconds(30);

    /** What {@code stat} says of a path: its {@code st_mode} and size. */
    public record Stat(int mode, long size) {}

    /**
     * {@code stat} ({@code follow}) or {@code lstat} of {@code path}; empty when it does not exist.
     */
    public Optional<Stat> stat(String path, boolean follow, Duration deadline) {
        return request(
                deadline,
                ChannelProtocol.STAT,
                List.of(path, follow ? "1" : "0"),
                c -> {
                    Frame f = c.read();
                    if (f.type() == ChannelProtocol.FAILED) {
                        ChannelRefusal r = ChannelRefusal.of(f);
                        if (r.code().equals("ENOENT")) {
                            return Optional.empty();
                        }
                        throw r;
                    }
                    expect(f, ChannelProtocol.STATS);
                    return Optional.of(parseStat(f));
                });
    }

    /**
     * Starts reading the regular file {@code path}, at most {@code max} bytes: returns once the
     * helper has answered with the file's stat (within {@code deadline}), so the caller can admit
     * or refuse it before a byte is copied — one request where a stat and a read would be two. The
     * helper stats before it opens, so a device or FIFO is refused ({@code ENOTREG}, {@code
     * EISDIR}) without being opened; a missing file is {@code ENOENT}.
     *
     * @throws ChannelRefusal the helper refused the file
     * @throws ChannelException the channel failed before the stat arrived (nothing was read)
     */
    public ChannelRead openRead(String path, long max, Duration deadline) {
        byte[] payload = ChannelProtocol.fields(List.of(path, Long.toString(max)));
        ChannelConnection c = open();
        ScheduledFuture<?> guard =
                watchdog.schedule(
                        c::close, Math.max(1, deadline.toMillis()), TimeUnit.MILLISECONDS);
        boolean sent = false;
        boolean handedOver = false;
        try {
            c.send(ChannelProtocol.READ, payload);
            sent = true;
            Frame f = c.read();
            if (f.type() == ChannelProtocol.FAILED) {
                throw ChannelRefusal.of(f);
            }
            expect(f, ChannelProtocol.STATS);
            Stat stat = parseStat(f);
            guard.cancel(false);
            handedOver = true;
            return new ChannelRead(this, c, watchdog, path, max, stat, UNCLAIMED_READ);
        } catch (AsynchronousCloseException e) {
            throw new ChannelException(
                    "the sandbox did not answer within " + deadline.toMillis() + " ms", sent, e);
        } catch (IOException e) {
            failed(e);
            throw new ChannelException("the sandbox channel failed: " + describe(e), sent, e);
        } finally {
            guard.cancel(false);
            if (!handedOver) {
                c.close();
            }
        }
    }

    /**
     * Writes {@code data} to {@code path} (parents created, the file replaced), with {@code mode}.
     */
    public void write(String path, byte[] data, int mode, Duration deadline) {
        request(
                deadline,
                ChannelProtocol.WRITE,
                List.of(path, Integer.toOctalString(mode)),
                c -> {
                    for (int off = 0; off < data.length; off += ChannelProtocol.CHUNK) {
                        c.send(
                                ChannelProtocol.DATA,
                                data,
                                off,
                                Math.min(ChannelProtocol.CHUNK, data.length - off));
                    }
                    c.send(ChannelProtocol.EOF, new byte[0]);
                    done(c);
                    return null;
                });
    }

    /**
     * The entries of directory {@code path} as the helper lists them ({@code t/name\0} each), at
     * most {@code cap} bytes of them.
     */
    public byte[] list(String path, long cap, Duration deadline) {
        return request(
                deadline,
                ChannelProtocol.LIST,
                List.of(path),
                c -> {
                    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
                    while (true) {
                        Frame f = c.read();
                        switch (f.type()) {
                            case ChannelProtocol.DATA -> {
                                if (out.size() + (long) f.payload().length > cap) {
                                    throw new ChannelRefusal(
                                            "EFBIG", "the listing exceeded " + cap + " bytes");
                                }
                                out.writeBytes(f.payload());
                            }
                            case ChannelProtocol.COMPLETED -> {
                                return out.toByteArray();
                            }
                            case ChannelProtocol.FAILED -> throw ChannelRefusal.of(f);
                            default -> throw protocol(f, "a list");
                        }
                    }
                });
    }

    /** {@code mkdir -p path}. */
    public void mkdir(String path, Duration deadline) {
        simple(ChannelProtocol.MKDIR, List.of(path), deadline);
    }

    /** Moves {@code from} to {@code to} (its parent created); {@code EXDEV} across file systems. */
    public void move(String from, String to, Duration deadline) {
        simple(ChannelProtocol.MOVE, List.of(from, to), deadline);
    }

    /** {@code rm -rf path}: links are removed, not followed; a missing path is success. */
    public void remove(String path, Duration deadline) {
        simple(ChannelProtocol.REMOVE, List.of(path), deadline);
    }

    private void simple(byte type, List<String> fields, Duration deadline) {
        request(
                deadline,
                type,
                fields,
                c -> {
                    done(c);
                    return null;
                });
    }

    // ---- plumbing ----

    private interface Exchange<T> {
        T run(ChannelConnection c) throws IOException;
    }

    /**
     * One request with an answer expected within {@code deadline}. Failures of the channel are
     * {@link ChannelException}s (the protocol ones also make the channel back off); the helper's
     * refusals are {@link ChannelRefusal}s.
     */
    private <T> T request(Duration deadline, byte type, List<String> fields, Exchange<T> exchange) {
        byte[] payload = ChannelProtocol.fields(fields);
        ChannelConnection c = open();
        ScheduledFuture<?> guard =
                watchdog.schedule(
                        c::close, Math.max(1, deadline.toMillis()), TimeUnit.MILLISECONDS);
        boolean sent = false;
        try {
            c.send(type, payload);
            sent = true;
            return exchange.run(c);
        } catch (AsynchronousCloseException e) {
            throw new ChannelException(
                    "the sandbox did not answer within " + deadline.toMillis() + " ms", sent, e);
        } catch (IOException e) {
            failed(e);
            throw new ChannelException("the sandbox channel failed: " + describe(e), sent, e);
        } finally {
            guard.cancel(false);
            c.close();
        }
    }

    private static void send(ChannelConnection c, byte type, List<String> fields)
            throws IOException {
        c.send(type, ChannelProtocol.fields(fields));
    }

    private static void done(ChannelConnection c) throws IOException {
        Frame f = c.read();
        if (f.type() == ChannelProtocol.FAILED) {
            throw ChannelRefusal.of(f);
        }
        expect(f, ChannelProtocol.COMPLETED);
    }

    private static void expect(Frame f, byte type) throws IOException {
        if (f.type() != type) {
            throw protocol(f, "the answer");
        }
    }

    private static IOException protocol(Frame f, String where) {
        return new ChannelConnection.ChannelProtocolException(
                "unexpected frame " + (char) f.type() + " in " + where);
    }

    private static Stat parseStat(Frame f) throws IOException {
        String[] parts = f.text().strip().split(" ");
        try {
            if (parts.length != 2) {
                throw new NumberFormatException();
            }
            return new Stat(Integer.parseInt(parts[0], 16), Long.parseLong(parts[1]));
        } catch (NumberFormatException e) {
            throw new ChannelConnection.ChannelProtocolException("malformed stat");
        }
    }
}
