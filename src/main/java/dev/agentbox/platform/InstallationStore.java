package dev.agentbox.platform;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.util.Optional;

/** JPA access to the {@link Installation} row; each method is its own transaction. */
@ApplicationScoped
public class InstallationStore {

    @PersistenceContext(unitName = "agentbox")
    EntityManager em;

    /** Inserts the row unless present. Throws if another server inserted it concurrently. */
    @Transactional
    public void createIfAbsent(String installationId, Instant now) {
        if (em.find(Installation.class, Installation.SINGLETON_ID) == null) {
            em.persist(new Installation(installationId, now));
            em.flush();
        }
    }

    @Transactional
    public Optional<Installation> find() {
        return Optional.ofNullable(em.find(Installation.class, Installation.SINGLETON_ID));
    }
}
