package dev.agentbox.platform.schema;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Logger;
import liquibase.Scope;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.lockservice.LockServiceFactory;
import liquibase.resource.ClassLoaderResourceAccessor;
import liquibase.ui.LoggerUIService;

/**
 * Brings one database to the newest version of the schema ({@value #CHANGELOG}) with Liquibase, on
 * a connection the caller owns and that is not part of a transaction.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>On PostgreSQL at most one migration runs at a time per database, even when several servers
 *       start at once: each first takes a session-level advisory lock ({@link #LOCK_CLASS}, {@link
 *       #LOCK_KEY}) on its connection. PostgreSQL frees it when that session ends, so a server that
 *       dies mid-migration never blocks the next one; the Liquibase lock row it may have left set
 *       is released under the advisory lock, where no other migration can be running.
 *   <li>On Derby (embedded: one server per database) Liquibase's own lock row guards it.
 *   <li>A database whose tables an earlier release created is adopted: version 1's change sets are
 *       recorded as run without touching a row (see the changelog).
 *   <li>Nothing is sent anywhere: Liquibase's usage analytics are off.
 * </ul>
 */
public final class SchemaMigrator {

    /** The changelog on the class path; its file names are recorded in the database. */
    public static final String CHANGELOG = "db/changelog.xml";

    /**
     * The advisory lock's two-int key. Its class ({@code 0x4142}, "AB") keeps it apart from the
     * single-bigint keys of the servers' liveness sessions ({@code objsubid} 2, not 1).
     */
    static final int LOCK_CLASS = 0x4142;

    static final int LOCK_KEY = 1;

    private static final Logger LOG = Logger.getLogger(SchemaMigrator.class.getName());

    private static final long LOCK_POLL_MS = 1_000;

    private final Duration lockWait;

    /**
     * @param lockWait how long to wait for another server's migration before giving up
     */
    public SchemaMigrator(Duration lockWait) {
        this.lockWait = lockWait;
    }

    /** What one call did: change sets recorded before and after, and how long it took. */
    public record Outcome(int before, int after, Duration took) {
        /** Change sets this call recorded, whether it ran them or adopted existing tables. */
        public int applied() {
            return after - before;
        }
    }

    /**
     * Applies every change set the database has not recorded, waiting first for a migration that
     * another server runs.
     *
     * @throws SQLException when the database cannot be read, the lock is not had in time, or a
     *     change set fails (Liquibase rolls back what it can and records nothing for it)
     */
    public Outcome migrate(Connection connection) throws SQLException {
        long start = System.nanoTime();
        boolean postgres = isPostgres(connection);
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(true);
        try {
            if (postgres) {
                lock(connection);
            }
            try {
                int before = recorded(connection);
                LOG.info(
                        "Schema: checking "
                                + CHANGELOG
                                + " against "
                                + connection.getMetaData().getDatabaseProductName()
                                + " ("
                                + before
                                + " change sets recorded)");
                update(connection, postgres);
                int after = recorded(connection);
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                LOG.info(
                        "Schema: up to date, "
                                + (after - before)
                                + " change sets recorded now (applied, or adopted where the"
                                + " table existed), "
                                + after
                                + " in all, in "
                                + took.toMillis()
                                + " ms");
                return new Outcome(before, after, took);
            } finally {
                if (postgres) {
                    unlock(connection);
                }
            }
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    private void update(Connection connection, boolean releaseStaleLock) throws SQLException {
        try {
            Database database =
                    DatabaseFactory.getInstance()
                            .findCorrectDatabaseImplementation(new JdbcConnection(connection));
            Map<String, Object> scope =
                    Map.of(
                            Scope.Attr.resourceAccessor.name(),
                            new ClassLoaderResourceAccessor(SchemaMigrator.class.getClassLoader()),
                            Scope.Attr.ui.name(),
                            new LoggerUIService(),
                            "liquibase.analytics.enabled",
                            false);
            Scope.child(
                    scope,
                    () -> {
                        if (releaseStaleLock) {
                            // Under the advisory lock no other migration runs: a set lock row is
                            // what a server killed mid-migration left behind.
                            LockServiceFactory.getInstance()
                                    .getLockService(database)
                                    .forceReleaseLock();
                        }
                        new CommandScope(UpdateCommandStep.COMMAND_NAME)
                                .addArgumentValue(
                                        DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                                .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, CHANGELOG)
                                .execute();
                    });
        } catch (Exception e) {
            throw new SQLException("schema migration failed: " + rootMessage(e), e);
        }
    }

    private void lock(Connection connection) throws SQLException {
        long deadline = System.nanoTime() + lockWait.toNanos();
        boolean logged = false;
        try (PreparedStatement ps =
                connection.prepareStatement("SELECT pg_try_advisory_lock(?, ?)")) {
            ps.setInt(1, LOCK_CLASS);
            ps.setInt(2, LOCK_KEY);
            while (true) {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getBoolean(1)) {
                        return;
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new SQLException(
                            "schema migration lock not had within "
                                    + lockWait.toMillis()
                                    + " ms: another server still migrates");
                }
                if (!logged) {
                    LOG.info("Schema: waiting for another server's migration to finish");
                    logged = true;
                }
                sleep();
            }
        }
    }

    private static void unlock(Connection connection) {
        try (PreparedStatement ps =
                connection.prepareStatement("SELECT pg_advisory_unlock(?, ?)")) {
            ps.setInt(1, LOCK_CLASS);
            ps.setInt(2, LOCK_KEY);
            ps.executeQuery().close();
        } catch (SQLException e) {
            // The session's end frees it anyway; the caller closes the connection.
            LOG.warning("Schema: advisory lock not released: " + e.getMessage());
        }
    }

    /** Change sets recorded in the database; 0 before Liquibase first ran there. */
    static int recorded(Connection connection) throws SQLException {
        DatabaseMetaData meta = connection.getMetaData();
        String table = "DATABASECHANGELOG";
        if (meta.storesLowerCaseIdentifiers()) {
            table = table.toLowerCase(Locale.ROOT);
        }
        try (ResultSet rs = meta.getTables(null, connection.getSchema(), table, null)) {
            if (!rs.next()) {
                return 0;
            }
        }
        try (Statement st = connection.createStatement();
                ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM DATABASECHANGELOG")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    static boolean isPostgres(Connection connection) throws SQLException {
        return connection
                .getMetaData()
                .getDatabaseProductName()
                .toLowerCase(Locale.ROOT)
                .contains("postgres");
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName() + ": " + t.getMessage();
    }

    private static void sleep() throws SQLException {
        try {
            Thread.sleep(LOCK_POLL_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while waiting for the schema migration lock", e);
        }
    }
}
