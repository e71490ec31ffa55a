package dev.agentbox.sandbox.channel;

import dev.agentbox.sandbox.spi.FileFollow;
import java.io.IOException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The channel to one sandbox's helper, through its socket on the host: one connection per request
 * (docs/sandbox-channel.md), taken from a spare connection made and handshaken in the background
 * after the previous request, so a request waits for no connect and no hello. Callers ask {@link
 * #usable()} first and fall back to the engine's exec when it says no.
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

    private static final Logger LOG = Logger.getLogger(SandboxChannel.class.getName());

    private final String name;
    private final Path socket;
    private final ScheduledExecutorService watchdog;
    private final Executor readers;
    private final AtomicBoolean failing = new AtomicBoolean();
    private volatile long retryAt;

    /**
     * @param name the sandbox, for logs
     * @param socket the helper's socket as the host sees it
     * @param watchdog closes connections whose deadline passed
     * @param readers runs the reader loop of each exec
     */
    public SandboxChannel(
            String name, Path socket, ScheduledExecutorService watchdog, Executor readers) {
        this.name = name;
        this.socket = socket;
        this.watchdog = watchdog;
        this.readers = readers;
    }

    public Path socket() {
        return socket;
    }

    /** The socket is there (a socket, not a link) and the channel is not backing off a failure. */
    public boolean usable() {
        if (failing.get() && System.nanoTime() - retryAt < 0) {
            return false;
        }
        // One lstat: a socket, not a link to one (nor anything else the sandbox put there).
        try {
            return Files.readAttributes(
                            socket, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                    .isOther();
        } catch (IOException e) {
            return false;
        }
    }

    /** Records a failure of the channel itself: unusable for {@link #BACKOFF}, logged once. */
    void failed(Throwable cause) {
        retryAt = System.nanoTime() + BACKOFF.toNanos();
        if (failing.compareAndSet(false, true)) {
            LOG.log(
                    Level.WARNING,
                    "sandbox channel of {0} failed ({1}); using docker exec for {2} ms before trying it again",
                    new Object[] {name, describe(cause), BACKOFF.toMillis()});
        }
    }

    private void answered() {
        if (failing.compareAndSet(true, false)) {
            LOG.log(Level.INFO, "sandbox channel of {0} answers again", name);
        }
    }

    private static String describe(Throwable t) {
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }

    /**
     * A connection for one request: the spare when there is a fresh one still open, else a new one;
     * either way a new spare is made in the background shortly after the request's connection
     * closes.
     */
    private ChannelConnection open() {
        ChannelConnection c = takeSpare();
        if (c == null) {
            c = connect();
        }
        // The next spare is made once this request is over, and a moment later still: made
        // sooner, its connect and the helper's fork of a handler would compete for the CPUs
        // with the request, then with the writing of its answer.
        c.onClose(this::refillSoon);
        return c;
    }

    /**
     * Connects and exchanges the hello within {@link #HANDSHAKE}, or fails as a channel failure.
     */
    private ChannelConnection connect() {
        try {
            ChannelConnection c = handshaken();
            answered();
            return c;
        } catch (IOException | RuntimeException e) {
            failed(e);
            throw new ChannelException(
                    "the sandbox channel of " + name + " could not be reached: " + describe(e),
                    false,
                    e);
        }
    }

    /** A connection that exchanged the hello within {@link #HANDSHAKE}; closed when it did not. */
    private ChannelConnection handshaken() throws IOException {
        ChannelConnection c = new ChannelConnection();
        ScheduledFuture<?> guard =
                watchdog.schedule(c::close, HANDSHAKE.toMillis(), TimeUnit.MILLISECONDS);
        try {
            c.handshake(socket);
            return c;
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        } finally {
            guard.cancel(false);
        }
    }

    /**
     * Whether the helper answers right now — proof that the container runs: a spare connection
     * still open says so without a round trip (the helper's handler behind it dies with the
     * container), else a hello on a new connection, which is then kept as the spare. Quiet: a
     * container that is stopped is no failure of the channel, so nothing is logged or backed off.
     */
    public boolean answers() {
        if (!usable()) {
            return false;
        }
        Spare s = spare.get();
        if (s != null && s.fresh() && s.connection().idleAndOpen()) {
            return true;
        }
        ChannelConnection c = quietConnect();
        if (c == null) {
            return false;
        }
        keepSpare(c);
        return true;
    }

    /** A handshaken connection, or null when the helper does not answer (nothing logged). */
    private ChannelConnection quietConnect() {
        try {
            return handshaken();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    // ---- the spare connection ----

    /**
     * How long a spare connection is kept: less than the helper allows between its hello and the
     * request (10 s), so a spare taken is never one the helper is about to drop.
     */
    static final Duration SPARE_FOR = Duration.ofSeconds(8);

    /** A handshaken connection waiting for the next request, and when it was made. */
    private record Spare(ChannelConnection connection, long since) {
        boolean fresh() {
            return System.nanoTime() - since < SPARE_FOR.toNanos();
        }
    }

    private final AtomicReference<Spare> spare = new AtomicReference<>();
    private final AtomicBoolean refilling = new AtomicBoolean();

    /** The spare, when it is fresh and still open (then it is no longer the spare); else null. */
    private ChannelConnection takeSpare() {
        Spare s = spare.getAndSet(null);
        if (s == null) {
            return null;
        }
        if (s.fresh() && s.connection().idleAndOpen()) {
            return s.connection();
        }
        s.connection().close();
        return null;
    }

    /**
     * How long after a request's connection closed its successor spare is begun: time for the
     * request's answer to leave the server (measured on 2 vCPUs: 0.45 ms off an exec's median).
     */
    static final Duration SPARE_AFTER = Duration.ofMillis(4);

    private void refillSoon() {
        try {
            watchdog.schedule(this::refill, SPARE_AFTER.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // shutting down: no spare needed
        }
    }

    /**
     * Makes a new spare on a reader thread, unless one is being made or the channel backs off a
     * failure. The hello off the request's path is what makes a request one round trip.
     */
    private void refill() {
        if (!usable() || !refilling.compareAndSet(false, true)) {
            return;
        }
        try {
            readers.execute(
                    () -> {
                        try {
                            ChannelConnection c = quietConnect();
                            if (c != null) {
                                keepSpare(c);
                            }
                        } finally {
                            refilling.set(false);
                        }
                    });
        } catch (RejectedExecutionException e) {
            refilling.set(false);
        }
    }

    /** Keeps {@code c} as the spare (closing the one it replaces) until it grows stale. */
    private void keepSpare(ChannelConnection c) {
        Spare s = new Spare(c, System.nanoTime());
        Spare old = spare.getAndSet(s);
        if (old != null) {
            old.connection().close();
        }
        try {
            watchdog.schedule(
                    () -> {
                        if (spare.compareAndSet(s, null)) {
                            c.close();
                        }
                    },
                    SPARE_FOR.toMillis(),
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            dropSpare();
        }
    }

    /** Whether a spare connection is waiting (diagnostics and tests). */
    public boolean hasSpare() {
        return spare.get() != null;
    }

    /** Closes the spare connection (the sandbox is gone or forgotten). */
    public void dropSpare() {
        Spare s = spare.getAndSet(null);
        if (s != null) {
            s.connection().close();
        }
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
