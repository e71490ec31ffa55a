package dev.agentbox.platform.lease;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Predicate;

/** {@link LeaseStore} on the {@code AB_LEASE} table. */
@ApplicationScoped
@Transactional
public class JpaLeaseStore implements LeaseStore {

    @PersistenceContext(unitName = "agentbox")
    EntityManager em;

    protected JpaLeaseStore() {}

    /** For tests outside the server: the caller owns the transaction around each call. */
    public JpaLeaseStore(EntityManager em) {
        this.em = em;
    }

    @Override
    public boolean tryAcquire(
            String name, String holder, OptionalLong session, Instant now, Duration ttl) {
        int taken =
                em.createQuery(
                                "UPDATE LeaseRow l SET l.holder = :holder, l.expiresAt = :expires, "
                                        + "l.holderSession = :session, l.released = FALSE "
                                        + "WHERE l.name = :name AND (l.holder = :holder OR l.expiresAt <= :now)")
                        .setParameter("holder", holder)
                        .setParameter("expires", now.plus(ttl))
                        .setParameter("session", boxed(session))
                        .setParameter("name", name)
                        .setParameter("now", now)
                        .executeUpdate();
        if (taken == 1) {
            return true;
        }
        if (em.find(LeaseRow.class, name) != null) {
            return false;
        }
        // First use of this name. A concurrent first insert fails on the primary key and
        // rolls this transaction back; the caller's retry then takes the UPDATE path.
        em.persist(new LeaseRow(name, holder, now.plus(ttl), session));
        em.flush();
        return true;
    }

    /** The holder recorded on a gate row made by {@link #tryAcquireGated}; it never holds it. */
    static final String GATE_ROW_HOLDER = "gate";

    @Override
    public Gated tryAcquireGated(
            String gate,
            String prefix,
            String name,
            String holder,
            OptionalLong session,
            Instant now,
            Duration ttl,
            Predicate<Set<String>> admit) {
        LeaseRow g = em.find(LeaseRow.class, gate, LockModeType.PESSIMISTIC_WRITE);
        if (g == null) {
            // First use: the inserted row is locked until commit like a found one. A concurrent
            // first insert fails on the primary key; the caller's retry then waits on the lock.
            em.persist(new LeaseRow(gate, GATE_ROW_HOLDER, now, OptionalLong.empty()));
            em.flush();
        } else if (g.toLease().heldAt(now)) {
            return Gated.GATE_BUSY;
        }
        if (!admit.test(heldNames(prefix, now))) {
            return Gated.DECLINED;
        }
        return tryAcquire(name, holder, session, now, ttl) ? Gated.TAKEN : Gated.DECLINED;
    }

    @Override
    public boolean takeFromGoneSession(
            String name,
            String holder,
            OptionalLong session,
            long goneSession,
            Instant now,
            Duration ttl) {
        return em.createQuery(
                                "UPDATE LeaseRow l SET l.holder = :holder, l.expiresAt = :expires, "
                                        + "l.holderSession = :session, l.released = FALSE "
                                        + "WHERE l.name = :name AND l.holderSession = :gone")
                        .setParameter("holder", holder)
                        .setParameter("expires", now.plus(ttl))
                        .setParameter("session", boxed(session))
                        .setParameter("name", name)
                        .setParameter("gone", goneSession)
                        .executeUpdate()
                == 1;
    }

    @Override
    public void forgetGoneSession(String name, long goneSession) {
        em.createQuery(
                        "UPDATE LeaseRow l SET l.holderSession = NULL "
                                + "WHERE l.name = :name AND l.holderSession = :gone")
                .setParameter("name", name)
                .setParameter("gone", goneSession)
                .executeUpdate();
    }

    private static Long boxed(OptionalLong session) {
        return session.isPresent() ? session.getAsLong() : null;
    }

    @Override
    public boolean renew(String name, String holder, Instant now, Duration ttl) {
        return em.createQuery(
                                "UPDATE LeaseRow l SET l.expiresAt = :expires "
                                        + "WHERE l.name = :name AND l.holder = :holder AND l.expiresAt > :now")
                        .setParameter("expires", now.plus(ttl))
                        .setParameter("name", name)
                        .setParameter("holder", holder)
                        .setParameter("now", now)
                        .executeUpdate()
                == 1;
    }

    @Override
    public void release(String name, String holder, Instant now) {
        em.createQuery(
                        "UPDATE LeaseRow l SET l.expiresAt = :now, l.released = TRUE, l.holderSession = NULL "
                                + "WHERE l.name = :name AND l.holder = :holder AND l.expiresAt > :now")
                .setParameter("now", now)
                .setParameter("name", name)
                .setParameter("holder", holder)
                .executeUpdate();
    }

    @Override
    public Set<String> heldNames(String prefix, Instant now) {
        // LIKE narrows the scan; startsWith decides, so '_' or '%' in a prefix cannot widen it.
        Set<String> out = new HashSet<>();
        em
                .createQuery(
                        "SELECT l.name FROM LeaseRow l WHERE l.name LIKE :prefix AND l.expiresAt > :now",
                        String.class)
                .setParameter("prefix", prefix + "%")
                .setParameter("now", now)
                .getResultList()
                .stream()
                .filter(n -> n.startsWith(prefix))
                .forEach(out::add);
        return out;
    }

    /** Reads at most this many names per query (bind-parameter limits of the databases). */
    private static final int FIND_ALL_BATCH = 500;

    @Override
    public Map<String, Lease> findAll(Collection<String> names) {
        List<String> all = List.copyOf(new LinkedHashSet<>(names));
        Map<String, Lease> found = new HashMap<>();
        for (int from = 0; from < all.size(); from += FIND_ALL_BATCH) {
            em.createQuery("SELECT l FROM LeaseRow l WHERE l.name IN :names", LeaseRow.class)
                    .setParameter(
                            "names", all.subList(from, Math.min(all.size(), from + FIND_ALL_BATCH)))
                    .getResultList()
                    .forEach(row -> found.put(row.toLease().name(), row.toLease()));
        }
        return found;
    }

    @Override
    public Optional<Lease> find(String name) {
        return Optional.ofNullable(em.find(LeaseRow.class, name)).map(LeaseRow::toLease);
    }
}
