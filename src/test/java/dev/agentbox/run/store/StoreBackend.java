package dev.agentbox.run.store;

import dev.agentbox.platform.TestDatabase;
import java.util.List;

/**
 * Where a contract test's stores live: in memory, or on the shared Derby / PostgreSQL test
 * database. Databases are opened once per JVM and shared by all run-store test classes (the schema
 * generation is the slow part); tests keep apart by unique tenants and delete their tenants' rows
 * afterwards, since the PostgreSQL database outlives the run.
 */
interface StoreBackend {

    /**
     * Fresh stores; the event log calls {@code afterFenceCheck} inside each fenced write after a
     * passed check.
     */
    RunStores stores(Runnable afterFenceCheck);

    /** Deletes every run of {@code tenant} with its claim and log. */
    void deleteTenant(String tenant);

    StoreBackend IN_MEMORY =
            new StoreBackend() {
                @Override
                public RunStores stores(Runnable afterFenceCheck) {
                    InMemoryRuns runs = new InMemoryRuns(afterFenceCheck);
                    return new RunStores(runs, runs, runs);
                }

                @Override
                public void deleteTenant(String tenant) {}
            };

    static StoreBackend derby() {
        return Jpa.on(TestDatabase.Kind.DERBY);
    }

    static StoreBackend postgres() {
        return Jpa.on(TestDatabase.Kind.POSTGRESQL);
    }

    /** The JPA stores on a shared test database, each call one transaction as in the container. */
    final class Jpa implements StoreBackend {

        private static Jpa derby;
        private static Jpa postgres;

        final TestDatabase db;

        private Jpa(TestDatabase db) {
            this.db = db;
        }

        static synchronized Jpa on(TestDatabase.Kind kind) {
            if (kind == TestDatabase.Kind.DERBY) {
                if (derby == null) {
                    derby = new Jpa(TestDatabase.open(kind));
                }
                return derby;
            }
            if (postgres == null) {
                postgres = new Jpa(TestDatabase.open(kind));
            }
            return postgres;
        }

        @Override
        public RunStores stores(Runnable afterFenceCheck) {
            return new RunStores(
                    db.transactional(RunStore.class, JpaRunStore::new),
                    db.transactional(ClaimStore.class, JpaClaimStore::new),
                    db.transactional(EventLog.class, em -> new JpaEventLog(em, afterFenceCheck)));
        }

        @Override
        public void deleteTenant(String tenant) {
            db.inTransaction(
                    em -> {
                        List<String> runs =
                                em.createQuery(
                                                "SELECT r.runPk FROM RunRecord r WHERE r.tenant = :tenant",
                                                String.class)
                                        .setParameter("tenant", tenant)
                                        .getResultList();
                        for (String run : runs) {
                            em.createQuery("DELETE FROM RunEvent e WHERE e.runPk = :pk")
                                    .setParameter("pk", run)
                                    .executeUpdate();
                            em.createQuery("DELETE FROM DriverClaim c WHERE c.runPk = :pk")
                                    .setParameter("pk", run)
                                    .executeUpdate();
                        }
                        em.createQuery("DELETE FROM RunRecord r WHERE r.tenant = :tenant")
                                .setParameter("tenant", tenant)
                                .executeUpdate();
                        return null;
                    });
        }
    }
}
