package dev.agentbox.platform.lease;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * This server's liveness as the database sees it: one dedicated PostgreSQL connection holding a
 * session-level advisory lock on a random key. The key is written into every lease the server takes
 * ({@code HOLDER_SESSION}); another server that finds no session holding a lease's key knows its
 * holder is gone.
 *
 * <p>Why that is evidence and not a guess: PostgreSQL frees a session's advisory locks only when
 * the session unlocks them (this class does so only in {@link #close}, once its server has stopped
 * writing under the key) or ends. A server that dies (SIGKILL, OOM kill, crash) has its TCP
 * connection closed by its kernel and its session ended within milliseconds; a frozen or
 * partitioned server keeps its session, so its leases only expire. Keys are random 63-bit numbers
 * drawn afresh for every session and the lock is taken before the key is used, so a key whose lock
 * is free was either never used or belongs to a session that has ended for good.
 *
 * <p>A session that breaks while its server lives (the connection cut, the backend terminated) must
 * end that server's writing under the key: {@link SessionLiveness} marks every lease taken under it
 * lost. Until the server notices, the runs' epoch fence keeps its late writes out.
 *
 * <p>Not thread-safe: one thread owns the connection.
 */
public final class ServerSession implements AutoCloseable {

    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * The advisory locks granted in this database, as the bigint keys they were taken with
     * (PostgreSQL shows a one-bigint key as its high and low halves in classid and objid, objsubid
     * 1).
     */
    private static final String HELD_KEYS =
            "SELECT ((k.classid::bigint << 32) | k.objid::bigint) AS key, k.pid FROM pg_locks k "
                    + "WHERE k.locktype = 'advisory' AND k.objsubid = 1 AND k.granted "
                    + "AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())";

    /**
     * One query per poll: whether this session still holds its own lock (first row), then the
     * leases under {@code prefix} whose holder session holds no lock.
     */
    private static final String POLL =
            "WITH held AS ("
                    + HELD_KEYS
                    + ") "
                    + "SELECT NULL AS name, NULL AS session, "
                    + "EXISTS (SELECT 1 FROM held WHERE held.key = ? AND held.pid = pg_backend_pid()) AS mine "
                    + "UNION ALL "
                    + "SELECT l.name, l.holder_session, NULL FROM ab_lease l "
                    + "WHERE l.holder_session IS NOT NULL AND l.name LIKE ? "
                    + "AND NOT EXISTS (SELECT 1 FROM held WHERE held.key = l.holder_session)";

    private final Connection connection;
    private final long key;

    private ServerSession(Connection connection, long key) {
        this.connection = connection;
        this.key = key;
    }

    /** A lease whose holder session has ended. */
    public record GoneLease(String name, long goneSession) {}

    /**
     * Takes a fresh key's advisory lock on {@code connection}, which must be a PostgreSQL
     * connection in autocommit mode that nobody else uses. Empty when the database is not
     * PostgreSQL. A key some other session holds (2^-63 per try) is simply drawn again.
     */
    public static Optional<ServerSession> open(Connection connection) throws SQLException {
        if (!"PostgreSQL".equalsIgnoreCase(connection.getMetaData().getDatabaseProductName())) {
            return Optional.empty();
        }
        connection.setAutoCommit(true);
        for (int attempt = 0; attempt < 5; attempt++) {
            long key = RANDOM.nextLong() & Long.MAX_VALUE;
            if (key == 0) {
                continue;
            }
            try (PreparedStatement lock =
                    connection.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
                lock.setLong(1, key);
                try (ResultSet rs = lock.executeQuery()) {
                    if (rs.next() && rs.getBoolean(1)) {
                        return Optional.of(new ServerSession(connection, key));
                    }
                }
            }
        }
        throw new SQLException("no free advisory lock key after 5 draws");
    }

    /** The key this session's leases carry. */
    public long key() {
        return key;
    }

    /**
     * Proves this session alive and lists the leases named {@code prefix}… whose holder session has
     * ended.
     *
     * @throws SQLException when the session is broken or no longer holds its lock: it must be
     *     treated as gone (its leases lost) from now on
     */
    public List<GoneLease> poll(String prefix) throws SQLException {
        List<GoneLease> gone = new ArrayList<>();
        boolean mine = false;
        try (PreparedStatement q = connection.prepareStatement(POLL)) {
            q.setLong(1, key);
            q.setString(
                    2, prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%");
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    String name = rs.getString(1);
                    if (name == null) {
                        mine = rs.getBoolean(3);
                    } else if (name.startsWith(prefix)) {
                        gone.add(new GoneLease(name, rs.getLong(2)));
                    }
                }
            }
        }
        if (!mine) {
            throw new SQLException("session " + key + " no longer holds its advisory lock");
        }
        return gone;
    }

    /**
     * Frees the lock and closes the connection. Only for a server that has stopped writing under
     * the key (its leases marked lost): the unlock matters when a pool keeps the physical
     * connection open after close.
     */
    @Override
    public void close() {
        try (PreparedStatement unlock =
                connection.prepareStatement("SELECT pg_advisory_unlock(?)")) {
            unlock.setLong(1, key);
            unlock.execute();
        } catch (SQLException e) {
            // Broken: the database ends the session, and the lock with it.
        }
        try {
            connection.close();
        } catch (SQLException e) {
            // Already broken: the database has ended the session or will.
        }
    }
}
