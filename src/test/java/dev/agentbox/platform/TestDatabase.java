package dev.agentbox.platform;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.EntityTransaction;
import jakarta.persistence.Persistence;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * A real database for store contract tests: embedded Derby in a fresh folder, or the PostgreSQL
 * test database ({@code agentbox.test.pg.url}, prepared by scripts/postgres). PostgreSQL being
 * unreachable fails the tests; it never skips them.
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
        Map<String, String> props = new HashMap<>();
        if (kind == Kind.DERBY) {
            Path dir = Path.of("target", "test-derby", UUID.randomUUID().toString());
            props.put(
                    "jakarta.persistence.jdbc.driver",
                    "org.apache.derby.iapi.jdbc.AutoloadedDriver");
            props.put(
                    "jakarta.persistence.jdbc.url",
                    "jdbc:derby:" + dir.toAbsolutePath() + ";create=true");
        } else {
            props.put("jakarta.persistence.jdbc.driver", "org.postgresql.Driver");
            props.put(
                    "jakarta.persistence.jdbc.url",
                    System.getProperty(
                            "agentbox.test.pg.url",
                            "jdbc:postgresql://127.0.0.1:5432/agentbox_test?user=agentbox&password=agentbox"));
        }
        props.putAll(extra);
        EntityManagerFactory emf = Persistence.createEntityManagerFactory("agentbox-test", props);
        emf.createEntityManager().close(); // connect and generate the schema now, failing loudly
        return new TestDatabase(emf, props.get("jakarta.persistence.jdbc.url"));
    }

    /**
     * Plain JDBC connections to the same database, for the stores' reads that bypass JPA (the
     * server's {@code jdbc/agentbox-nontx}).
     */
    public DataSource dataSource() {
        return new DriverManagerDataSource(url);
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
