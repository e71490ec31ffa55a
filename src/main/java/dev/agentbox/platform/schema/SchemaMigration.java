package dev.agentbox.platform.schema;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Priority;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Applies the versioned schema ({@link SchemaMigrator}) when the application starts, before
 * anything else uses the database.
 *
 * <p>Why it comes first: the stores' entity manager creates no table any more, so a store used
 * before the migration would find none. Every start-up path that touches the database waits for
 * this bean: the timer singletons name it in {@code @DependsOn}, and its observer of the
 * application's start has the earliest priority, so the CDI observers after it (the installation
 * row, the liveness session) find the schema in place. Its own start-up is idempotent: whichever of
 * the two comes first runs the migration, the other finds it done.
 *
 * <p>A database that is down at start does not stop the server (health reports it): the migration
 * is tried again every {@code agentbox.schema.retry-ms} until it succeeds.
 *
 * <p>It runs on {@code jdbc/agentbox-nontx}: DDL needs a connection outside any JTA transaction (on
 * PostgreSQL a failed statement aborts the surrounding transaction).
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class SchemaMigration {

    private static final Logger LOG = Logger.getLogger(SchemaMigration.class.getName());

    /** Where the schema stands on this server, as health reports it. */
    public enum State {
        /** Not yet tried, or tried and failed: a retry is due. */
        PENDING,
        /** Every change set of this version is recorded in the database. */
        APPLIED,
        /** {@code agentbox.schema.migrate=false}: the operator applies the changelog. */
        EXTERNAL;

        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    @Resource(lookup = "jdbc/agentbox-nontx")
    DataSource dataSource;

    @Resource TimerService timers;

    @Inject
    @ConfigProperty(name = "agentbox.schema.migrate")
    boolean migrate;

    @Inject
    @ConfigProperty(name = "agentbox.schema.lock-wait-ms")
    long lockWaitMs;

    @Inject
    @ConfigProperty(name = "agentbox.schema.retry-ms")
    long retryMs;

    private volatile State state = State.PENDING;
    private volatile String lastError;

    @PostConstruct
    void start() {
        if (!migrate) {
            state = State.EXTERNAL;
            LOG.info(
                    "Schema: not applied by this server (agentbox.schema.migrate=false); the"
                            + " database must already hold every change set of "
                            + SchemaMigrator.CHANGELOG);
            return;
        }
        if (!attempt()) {
            timers.createSingleActionTimer(retryMs, new TimerConfig("schema-retry", false));
        }
    }

    /**
     * Runs before every other observer of the application's start: calling into this bean makes the
     * container finish {@link #start()} first.
     */
    public void onStart(
            @Observes
                    @Priority(Interceptor.Priority.PLATFORM_BEFORE)
                    @Initialized(ApplicationScoped.class)
                    Object ignored) {
        // Nothing more: reaching this bean is the wait.
    }

    @Timeout
    void retry() {
        if (state == State.PENDING && !attempt()) {
            timers.createSingleActionTimer(retryMs, new TimerConfig("schema-retry", false));
        }
    }

    /** Where the schema stands: {@code pending} until a migration succeeded. */
    public State state() {
        return state;
    }

    /** Why the last attempt failed; null once applied or before any attempt failed. */
    public String lastError() {
        return lastError;
    }

    private boolean attempt() {
        try (Connection c = dataSource.getConnection()) {
            new SchemaMigrator(Duration.ofMillis(lockWaitMs)).migrate(c);
            lastError = null;
            state = State.APPLIED;
            return true;
        } catch (SQLException | RuntimeException e) {
            lastError = e.getMessage();
            LOG.warning(
                    "Schema: migration failed, next attempt in "
                            + retryMs
                            + " ms: "
                            + e.getMessage());
            return false;
        }
    }
}
