package dev.agentbox.platform.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.platform.TestDatabase;
import dev.agentbox.testing.NeedsPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two servers whose takes wait on the row lock of a third, frozen mid-transaction, on a real
 * PostgreSQL (TK-17): when the lock goes (the database ends the frozen session; here a rollback)
 * both statements run with the instants they were given long before, and only one server may end up
 * holding the lease.
 */
@NeedsPostgres
class LeasesPostgresTest {

    private static final Duration TTL = Duration.ofSeconds(2);

    private static TestDatabase db;
    private static LeaseStore store;

    @BeforeAll
    static void open() {
        db = TestDatabase.open(TestDatabase.Kind.POSTGRESQL);
        store = db.transactional(LeaseStore.class, JpaLeaseStore::new);
    }

    @AfterAll
    static void close() {
        db.close();
    }

    @Test
    void ofTwoServersWhoseTakesWaitedOnAFrozenServersLockOnlyOneHoldsTheLease() throws Exception {
        String name = "run-driver:frozen-" + UUID.randomUUID();
        assertThat(store.tryAcquire(name, "a/1", Instant.now(), Duration.ofMillis(200))).isTrue();
        Thread.sleep(300); // A's lease has run out; A itself is frozen before a commit
        ScheduledExecutorService renewals = Executors.newScheduledThreadPool(2);
        ExecutorService servers = Executors.newFixedThreadPool(2);
        List<HeldLease> held = new ArrayList<>();
        try (Connection frozen = db.dataSource().getConnection()) {
            frozen.setAutoCommit(false);
            try (PreparedStatement lock =
                    frozen.prepareStatement("UPDATE AB_LEASE SET HOLDER = HOLDER WHERE NAME = ?")) {
                lock.setString(1, name);
                assertThat(lock.executeUpdate()).isEqualTo(1);
            }
            Leases b = new Leases(store, Clock.systemUTC(), "b", renewals);
            Leases c = new Leases(store, Clock.systemUTC(), "c", renewals);
            Future<Optional<HeldLease>> onB =
                    servers.submit(() -> b.acquire(name, TTL, Duration.ZERO));
            // C asks after B's lease, if B got it now, would have run out again.
            Thread.sleep(TTL.toMillis() + 300);
            Future<Optional<HeldLease>> onC =
                    servers.submit(() -> c.acquire(name, TTL, Duration.ZERO));
            Thread.sleep(1200);
            assertThat(onB.isDone() || onC.isDone()).as("both wait on the lock").isFalse();
            frozen.rollback();

            Optional<HeldLease> leaseOfB = onB.get(20, TimeUnit.SECONDS);
            Optional<HeldLease> leaseOfC = onC.get(20, TimeUnit.SECONDS);
            leaseOfB.ifPresent(held::add);
            leaseOfC.ifPresent(held::add);

            assertThat(held).as("leases held after the lock went").hasSize(1);
            Lease row = store.find(name).orElseThrow();
            assertThat(row.heldAt(Instant.now())).isTrue();
            assertThat(row.holder()).startsWith(leaseOfB.isPresent() ? "b/" : "c/");
        } finally {
            held.forEach(HeldLease::close);
            servers.shutdownNow();
            renewals.shutdownNow();
        }
    }
}
