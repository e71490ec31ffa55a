package dev.agentbox.platform.lease;

import dev.agentbox.platform.NodeIdentity;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Keeps this server's {@link ServerSession} on its own connection ({@code jdbc/agentbox-liveness},
 * outside the stores' pools) and polls through it every {@code agentbox.takeover.session-poll-ms}:
 * each poll proves the session alive and finds the run-driver leases whose holder session has
 * ended, announced as a {@link GoneSessionLeases} event for the runs to be taken over at once.
 *
 * <p>Invariants: a key is {@link #currentSession() current} only after its lock is taken, so no
 * lease carries a key before its session holds it; once a poll fails the key is never current
 * again, so every lease taken under it reads {@link HeldLease#lost() lost} from that moment; a new
 * session draws a new key. With {@code agentbox.takeover.liveness=lease}, or on a database other
 * than PostgreSQL (embedded Derby: one server), there is no session and leases only expire.
 */
@ApplicationScoped
public class SessionLiveness {

    private static final Logger LOG = Logger.getLogger(SessionLiveness.class.getName());

    /** Between attempts to open a session after it broke or could not be opened. */
    private static final long RECONNECT_MS = 1_000;

    @Resource(lookup = "jdbc/agentbox-liveness")
    DataSource dataSource;

    @Resource ManagedThreadFactory threads;

    @Inject NodeIdentity node;

    @Inject Event<GoneSessionLeases> goneLeases;

    @Inject
    @ConfigProperty(name = "agentbox.takeover.liveness")
    String configured;

    @Inject
    @ConfigProperty(name = "agentbox.takeover.session-poll-ms")
    long pollMs;

    /**
     * A poll that hangs this long (an unreachable database) breaks the session: by then this
     * server's leases are about to expire anyway.
     */
    @Inject
    @ConfigProperty(name = "agentbox.takeover.lease-ttl-ms")
    long leaseTtlMs;

    private volatile OptionalLong current = OptionalLong.empty();
    private volatile boolean stopping;
    private volatile boolean unsupported;
    private Thread thread;

    /** How takeovers learn that a driver is gone: by its session, or only by its lease's expiry. */
    public enum Mode {
        SESSION,
        LEASE;

        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    void onStart(@Observes @Initialized(ApplicationScoped.class) Object ignored) {
        if (!"session".equalsIgnoreCase(configured.trim())) {
            LOG.info(
                    "Driver liveness by lease expiry only (agentbox.takeover.liveness="
                            + configured
                            + ")");
            return;
        }
        thread = threads.newThread(this::loop);
        thread.setName("agentbox-session-liveness");
        thread.start();
    }

    /** The key of the session this server holds now; empty in lease mode or while it has none. */
    public OptionalLong currentSession() {
        return current;
    }

    /** Whether {@code key} is this server's current session (false once it broke). */
    public boolean holds(long key) {
        OptionalLong now = current;
        return now.isPresent() && now.getAsLong() == key;
    }

    /** {@link Mode#SESSION} while this server holds a session, else {@link Mode#LEASE}. */
    public Mode mode() {
        return current.isPresent() ? Mode.SESSION : Mode.LEASE;
    }

    private void loop() {
        long lastFailureLog = 0;
        while (!stopping && !unsupported) {
            ServerSession session;
            try {
                session = open().orElse(null);
            } catch (SQLException | RuntimeException e) {
                if (System.nanoTime() - lastFailureLog > 60_000_000_000L) {
                    LOG.warning(
                            "No database session for fast takeovers yet (leases expire as"
                                    + " usual meanwhile): "
                                    + e);
                    lastFailureLog = System.nanoTime();
                }
                pause(RECONNECT_MS);
                continue;
            }
            if (session == null) {
                unsupported = true;
                LOG.info(
                        "Driver liveness by lease expiry only: the database is not PostgreSQL,"
                                + " so there is no session to watch");
                return;
            }
            current = OptionalLong.of(session.key());
            LOG.info(
                    "Driver liveness by database session "
                            + session.key()
                            + " (node "
                            + node.id()
                            + "); polling every "
                            + pollMs
                            + " ms");
            watch(session);
        }
    }

    private Optional<ServerSession> open() throws SQLException {
        Connection connection = dataSource.getConnection();
        try {
            connection.setNetworkTimeout(Runnable::run, (int) Math.max(1_000, leaseTtlMs));
            Optional<ServerSession> session = ServerSession.open(connection);
            if (session.isEmpty()) {
                connection.close();
            }
            return session;
        } catch (SQLException | RuntimeException e) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // The connection is broken as well.
            }
            throw e;
        }
    }

    /** Polls until the session breaks or the server stops; either way the key is dropped. */
    private void watch(ServerSession session) {
        try {
            while (!stopping) {
                List<ServerSession.GoneLease> gone = session.poll(LeaseNames.RUN_DRIVER_PREFIX);
                if (!gone.isEmpty() && !stopping) {
                    announce(gone);
                }
                pause(pollMs);
            }
        } catch (SQLException | RuntimeException e) {
            // From here on, every lease under this key reads lost: other servers may take them
            // over at once, so this server must not write under it again.
            current = OptionalLong.empty();
            LOG.warning(
                    "Database session "
                            + session.key()
                            + " broke; every lease taken under it is lost and its runs are left"
                            + " to their successors: "
                            + e);
        } finally {
            current = OptionalLong.empty();
            session.close();
        }
    }

    private void announce(List<ServerSession.GoneLease> gone) {
        try {
            goneLeases.fire(new GoneSessionLeases(gone));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Taking over runs of ended sessions failed: " + e, e);
        }
    }

    private void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopping = true;
        }
    }

    /**
     * Stopping: the key stops being current at once (leases under it read lost, so no driver here
     * starts another write), then the poll loop ends and closes the session.
     */
    @PreDestroy
    void stop() {
        stopping = true;
        current = OptionalLong.empty();
        Thread t = thread;
        if (t != null) {
            try {
                t.join(pollMs + 2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Run-driver leases whose holder session has ended, found by one poll. */
    public record GoneSessionLeases(List<ServerSession.GoneLease> leases) {}
}
