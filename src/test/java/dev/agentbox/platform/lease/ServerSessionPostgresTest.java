package dev.agentbox.platform.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.platform.TestDatabase;
import dev.agentbox.platform.lease.ServerSession.GoneLease;
import dev.agentbox.testing.NeedsPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Server sessions on the real PostgreSQL: a lease counts as its holder's gone session exactly when
 * no session holds the key it carries — never while its server lives, at once when its connection
 * closes or its backend is terminated (TK-15).
 */
@NeedsPostgres
class ServerSessionPostgresTest {

    private static final Duration TTL = Duration.ofMinutes(5);

    private static TestDatabase db;
    private static LeaseStore store;

    /**
     * Each test's own prefix, so leases of other tests (and servers) on the database are not seen.
     */
    private final String prefix = LeaseNames.RUN_DRIVER_PREFIX + "s-" + UUID.randomUUID() + "-";

    private final List<ServerSession> sessions = new java.util.ArrayList<>();

    @BeforeAll
    static void open() {
        db = TestDatabase.open(TestDatabase.Kind.POSTGRESQL);
        store = db.transactional(LeaseStore.class, JpaLeaseStore::new);
    }

    @AfterAll
    static void close() {
        db.close();
    }

    @AfterEach
    void closeSessions() {
        sessions.forEach(ServerSession::close);
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(
                System.getProperty(
                        "agentbox.test.pg.url",
                        "jdbc:postgresql://127.0.0.1:5432/agentbox_test?user=agentbox&password=agentbox"));
    }

    private ServerSession session(Connection c) throws SQLException {
        ServerSession s = ServerSession.open(c).orElseThrow();
        sessions.add(s);
        return s;
    }

    private void lease(String suffix, ServerSession holder) {
        store.tryAcquire(
                prefix + suffix,
                "node/" + suffix,
                OptionalLong.of(holder.key()),
                Instant.now(),
                TTL);
    }

    @Test
    void noLeaseOfALiveSessionIsGoneAndEverySessionDrawsItsOwnKey() throws Exception {
        ServerSession a = session(connect());
        ServerSession b = session(connect());
        lease("a", a);
        lease("b", b);

        assertThat(a.key()).isNotEqualTo(b.key()).isPositive();
        assertThat(a.poll(prefix)).isEmpty();
        assertThat(b.poll(prefix)).isEmpty();
    }

    @Test
    void theLeasesOfASessionWhoseConnectionClosedAreGoneAtOnce() throws Exception {
        ServerSession watcher = session(connect());
        Connection dying = connect();
        ServerSession died = ServerSession.open(dying).orElseThrow();
        lease("died", died);
        lease("alive", watcher);

        // A process killed with SIGKILL: its socket closes, nothing is unlocked first.
        dying.close();

        awaitGone(watcher, List.of(new GoneLease(prefix + "died", died.key())));
    }

    @Test
    void aTerminatedBackendsLeasesAreGoneAndItsOwnNextPollFails() throws Exception {
        ServerSession watcher = session(connect());
        ServerSession victim = session(connect());
        lease("victim", victim);

        try (Connection admin = connect();
                PreparedStatement kill =
                        admin.prepareStatement(
                                "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype ="
                                        + " 'advisory' AND objsubid = 1 AND ((classid::bigint << 32)"
                                        + " | objid::bigint) = ?")) {
            kill.setLong(1, victim.key());
            kill.execute();
        }

        awaitGone(watcher, List.of(new GoneLease(prefix + "victim", victim.key())));
        assertThatThrownBy(() -> victim.poll(prefix))
                .as("the terminated session learns it is gone on its next poll")
                .isInstanceOf(SQLException.class);
    }

    @Test
    void aSessionClosedOnPurposeFreesItsKeyEvenIfThePhysicalConnectionLivesOn() throws Exception {
        ServerSession watcher = session(connect());
        Connection pooled = connect();
        ServerSession closing = ServerSession.open(pooled).orElseThrow();
        lease("closing", closing);
        try (PreparedStatement unlock = pooled.prepareStatement("SELECT pg_advisory_unlock(?)")) {
            // What close() does before handing the connection back to a pool that may keep it.
            unlock.setLong(1, closing.key());
            unlock.execute();
            assertThat(watcher.poll(prefix))
                    .containsExactly(new GoneLease(prefix + "closing", closing.key()));
            assertThatThrownBy(() -> closing.poll(prefix))
                    .as("a session without its lock reports itself broken")
                    .isInstanceOf(SQLException.class);
        } finally {
            pooled.close();
        }
    }

    @Test
    void releasedAndForgottenLeasesAreNotGone() throws Exception {
        ServerSession watcher = session(connect());
        Connection dying = connect();
        ServerSession died = ServerSession.open(dying).orElseThrow();
        lease("released", died);
        lease("forgotten", died);
        store.release(prefix + "released", "node/released", Instant.now());
        dying.close();
        awaitGone(watcher, List.of(new GoneLease(prefix + "forgotten", died.key())));

        store.forgetGoneSession(prefix + "forgotten", died.key());
        assertThat(watcher.poll(prefix)).isEmpty();
    }

    @Test
    void aDatabaseOtherThanPostgresHasNoSession() throws Exception {
        try (Connection derby =
                DriverManager.getConnection(
                        "jdbc:derby:memory:session-" + UUID.randomUUID() + ";create=true")) {
            assertThat(ServerSession.open(derby)).isEmpty();
        }
    }

    private void awaitGone(ServerSession watcher, List<GoneLease> expected) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        List<GoneLease> gone = watcher.poll(prefix);
        while (!gone.equals(expected) && System.nanoTime() < deadline) {
            Thread.sleep(20);
            gone = watcher.poll(prefix);
        }
        assertThat(gone).containsExactlyElementsOf(expected);
    }
}
