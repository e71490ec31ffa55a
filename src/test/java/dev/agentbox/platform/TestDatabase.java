package dev.agentbox.platform;

import dev.agentbox.platform.schema.SchemaMigrator;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.EntityTransaction;
import jakarta.persistence.Persistence;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Stream;
import javax.sql.DataSource;

/**
 * A real database for store contract tests: embedded Derby in a fresh folder, or the PostgreSQL
 * test database ({@code agentbox.test.pg.url}, prepared by scripts/postgres), with the versioned
 * schema applied as the server applies it. PostgreSQL being unreachable fails the tests; it never
 * skips them.
 */
public final class TestDatabase implements AutoCloseable {

    public enum Kind {
        DERBY,
        POSTGRESQL
    }

    private final EntityManagerFactory emf;
    private final String url;

    private TestDatabase(EntityManagerFactory emf, String url) {
        this.emf = emf;
        this.url = url;
    }

    public static TestDatabase open(Kind kind) {
        return open(kind, Map.of());
    }

    /**
     * Like {@link #open(Kind)}, with {@code extra} persistence-unit properties on top (e.g. an
     * {@code eclipselink.session-event-listener} that counts SQL statements).
     */
    public static TestDatabase open(Kind kind, Map<String, String> extra) {
        if (kind == Kind.DERBY) {
            return openWith(copyOfMigratedDerby(), extra);
        }
        return openMigrated(freshUrl(kind), extra);
    }

    private static Path migratedDerby;

    /**
     * A fresh Derby database with the versioned schema: a copy of one migrated once per JVM, since
     * the migration costs seconds and a test class opens a database of its own.
     */
    private static synchronized String copyOfMigratedDerby() {
        try {
            if (migratedDerby == null) {
                String url = freshUrl(Kind.DERBY);
                try (Connection c = DriverManager.getConnection(url)) {
                    new SchemaMigrator(Duration.ofMinutes(2)).migrate(c);
                }
                Path dir = Path.of(url.substring("jdbc:derby:".length(), url.indexOf(';')));
                shutDownDerby(dir);
                migratedDerby = dir;
            }
            Path copy = Path.of("target", "test-derby", UUID.randomUUID().toString());
            try (Stream<Path> files = Files.walk(migratedDerby)) {
                for (Path from : (Iterable<Path>) files::iterator) {
                    Files.copy(from, copy.resolve(migratedDerby.relativize(from).toString()));
                }
            }
            return "jdbc:derby:" + copy.toAbsolutePath();
        } catch (SQLException | IOException e) {
            throw new IllegalStateException("could not make a migrated Derby database", e);
        }
    }

    /** Closes the database so that its files can be copied (Derby answers with an exception). */
    private static void shutDownDerby(Path dir) {
        try {
            DriverManager.getConnection("jdbc:derby:" + dir + ";shutdown=true").close();
        } catch (SQLException expected) {
            if (!"08006".equals(expected.getSQLState())) {
                throw new IllegalStateException("Derby did not shut down " + dir, expected);
            }
        }
    }

    /**
     * The database at {@code url} brought to the versioned schema first (as the server does at
     * start), then opened with JPA, which creates no table.
     */
    public static TestDatabase openMigrated(String url, Map<String, String> extra) {
        try (Connection c = DriverManager.getConnection(url)) {
            new SchemaMigrator(Duration.ofMinutes(2)).migrate(c);
        } catch (SQLException e) {
            throw new IllegalStateException("schema migration failed on " + url, e);
        }
        return openWith(url, extra);
    }

    /**
     * The database at {@code url} with the tables EclipseLink makes of the entities ({@code
     * create-or-extend-tables}), as every release before the versioned schema did, and without any
     * Liquibase table.
     */
    public static TestDatabase createdByEntities(String url) {
        return openWith(
                url,
                Map.of(
                        "eclipselink.ddl-generation", "create-or-extend-tables",
                        "eclipselink.ddl-generation.output-mode", "database"));
    }

    /**
     * A URL of an empty embedded Derby database in a fresh folder, or of the PostgreSQL test
     * database ({@code agentbox.test.pg.url}; empty only after {@link #dropAllTables}).
     */
    public static String freshUrl(Kind kind) {
        if (kind == Kind.DERBY) {
            Path dir = Path.of("target", "test-derby", UUID.randomUUID().toString());
            return "jdbc:derby:" + dir.toAbsolutePath() + ";create=true";
        }
        return System.getProperty(
                "agentbox.test.pg.url",
                "jdbc:postgresql://127.0.0.1:5432/agentbox_test?user=agentbox&password=agentbox");
    }

    /**
     * Drops every table of the connection's schema (agentbox's and Liquibase's), so that the shared
     * PostgreSQL test database can be made again from nothing.
     */
    public static void dropAllTables(String url) {
        try (Connection c = DriverManager.getConnection(url)) {
            List<String> tables = new ArrayList<>();
            try (ResultSet rs =
                    c.getMetaData().getTables(null, c.getSchema(), null, new String[] {"TABLE"})) {
                while (rs.next()) {
                    tables.add(rs.getString("TABLE_NAME"));
                }
            }
            try (Statement st = c.createStatement()) {
                for (String table : tables) {
                    st.execute(
                            "DROP TABLE \""
                                    + table
                                    + "\""
                                    + (url.startsWith("jdbc:postgresql") ? " CASCADE" : ""));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not empty " + url, e);
        }
    }

    private static TestDatabase openWith(String url, Map<String, String> extra) {
        Map<String, String> props = new HashMap<>();
        props.put(
                "jakarta.persistence.jdbc.driver",
                url.startsWith("jdbc:derby:")
                        ? "org.apache.derby.iapi.jdbc.AutoloadedDriver"
                        : "org.postgresql.Driver");
        props.put("jakarta.persistence.jdbc.url", url);
        props.putAll(extra);
        EntityManagerFactory emf = Persistence.createEntityManagerFactory("agentbox-test", props);
        emf.createEntityManager().close(); // connect now, failing loudly
        return new TestDatabase(emf, url);
    }

    /**
     * Plain JDBC connections to the same database, for the stores' reads that bypass JPA (the
     * server's {@code jdbc/agentbox-nontx}).
     */
    public DataSource dataSource() {
        return new DriverManagerDataSource(url);
    }

    /** The JDBC URL of this database. */
    public String url() {
        return url;
    }

    /** Deletes every row of the given entity types, for a clean start per test. */
    public void clear(Class<?>... entities) {
        inTransaction(
                em -> {
                    for (Class<?> entity : entities) {
                        em.createQuery("DELETE FROM " + entity.getSimpleName()).executeUpdate();
                    }
                    return null;
                });
    }

    public <T> T inTransaction(Function<EntityManager, T> work) {
        EntityManager em = emf.createEntityManager();
        EntityTransaction tx = em.getTransaction();
        try {
            tx.begin();
            T result = work.apply(em);
            tx.commit();
            return result;
        } catch (RuntimeException e) {
            if (tx.isActive()) {
                tx.rollback();
            }
            throw e;
        } finally {
            em.close();
        }
    }

    /**
     * A store whose every call runs in its own transaction on its own entity manager, as the
     * container's {@code @Transactional} store beans do.
     */
    @SuppressWarnings("unchecked")
    public <S> S transactional(Class<S> contract, Function<EntityManager, ? extends S> factory) {
        return (S)
                Proxy.newProxyInstance(
                        contract.getClassLoader(),
                        new Class<?>[] {contract},
                        (proxy, method, args) -> {
                            if (method.getDeclaringClass() == Object.class) {
                                return method.invoke(this, args);
                            }
                            return inTransaction(
                                    em -> {
                                        try {
                                            return method.invoke(factory.apply(em), args);
                                        } catch (InvocationTargetException e) {
                                            throw e.getCause() instanceof RuntimeException re
                                                    ? re
                                                    : new IllegalStateException(e.getCause());
                                        } catch (IllegalAccessException e) {
                                            throw new IllegalStateException(e);
                                        }
                                    });
                        });
    }

    @Override
    public void close() {
        emf.close();
    }
}
