package dev.agentbox.platform;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Logger;

/**
 * Finds or creates the {@link Installation} row, first at start-up. Tolerant of a database that is
 * down at start: the server still starts (health reports DOWN) and the row is made on the first
 * later call that reaches the database. Two servers racing on an empty database both end up reading
 * the row the winner inserted.
 */
@ApplicationScoped
public class InstallationService {

    private static final Logger LOG = Logger.getLogger(InstallationService.class.getName());

    @Inject InstallationStore store;

    @Inject Clock clock;

    private volatile Installation known;

    void onStart(@Observes @Initialized(ApplicationScoped.class) Object ignored) {
        current();
    }

    /**
     * The installation, created if the database is new; empty while the database is unreachable.
     */
    public Optional<Installation> current() {
        Installation cached = known;
        if (cached != null) {
            return Optional.of(cached);
        }
        try {
            try {
                store.createIfAbsent(
                        UUID.randomUUID().toString().replace("-", ""), clock.instant());
            } catch (RuntimeException lostRace) {
                // Another server inserted the row between our read and our insert; read theirs.
                LOG.fine("installation row was created concurrently");
            }
            Optional<Installation> found = store.find();
            found.ifPresent(
                    i -> {
                        known = i;
                        LOG.info(
                                "Database installation "
                                        + i.installationId()
                                        + " (created "
                                        + i.createdAt()
                                        + ")");
                    });
            return found;
        } catch (RuntimeException e) {
            LOG.warning("Database not reachable: " + e.getClass().getSimpleName());
            return Optional.empty();
        }
    }
}
