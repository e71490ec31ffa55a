package dev.agentbox.platform.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link LeaseStore} in memory, for fast tests of logic built on leases. Passes the same contract
 * as the JPA store.
 */
public class InMemoryLeaseStore implements LeaseStore {

    private final Map<String, Lease> leases = new ConcurrentHashMap<>();

    @Override
    public synchronized boolean tryAcquire(
            String name, String holder, OptionalLong session, Instant now, Duration ttl) {
        Lease current = leases.get(name);
        if (current == null || current.holder().equals(holder) || !current.heldAt(now)) {
            leases.put(name, new Lease(name, holder, now.plus(ttl), session, false));
            return true;
        }
        return false;
    }

    @Override
    public synchronized Gated tryAcquireGated(
            String gate,
            String prefix,
            String name,
            String holder,
            OptionalLong session,
            Instant now,
            Duration ttl,
            java.util.function.Predicate<java.util.Set<String>> admit) {
        Lease g = leases.get(gate);
        if (g != null && g.heldAt(now)) {
            return Gated.GATE_BUSY;
        }
        if (!admit.test(heldNames(prefix, now))) {
            return Gated.DECLINED;
        }
        return tryAcquire(name, holder, session, now, ttl) ? Gated.TAKEN : Gated.DECLINED;
    }

    @Override
    public synchronized boolean takeFromGoneSession(
            String name,
            String holder,
            OptionalLong session,
            long goneSession,
            Instant now,
            Duration ttl) {
        Lease current = leases.get(name);
        if (current != null && current.holderSession().equals(OptionalLong.of(goneSession))) {
            leases.put(name, new Lease(name, holder, now.plus(ttl), session, false));
            return true;
        }
        return false;
    }

    @Override
    public synchronized void forgetGoneSession(String name, long goneSession) {
        Lease current = leases.get(name);
        if (current != null && current.holderSession().equals(OptionalLong.of(goneSession))) {
            leases.put(
                    name,
                    new Lease(
                            name,
                            current.holder(),
                            current.expiresAt(),
                            OptionalLong.empty(),
                            current.released()));
        }
    }

    @Override
    public synchronized boolean renew(String name, String holder, Instant now, Duration ttl) {
        Lease current = leases.get(name);
        if (current != null && current.holder().equals(holder) && current.heldAt(now)) {
            leases.put(
                    name,
                    new Lease(
                            name,
                            holder,
                            now.plus(ttl),
                            current.holderSession(),
                            current.released()));
            return true;
        }
        return false;
    }

    @Override
    public synchronized void release(String name, String holder, Instant now) {
        Lease current = leases.get(name);
        if (current != null && current.holder().equals(holder) && current.heldAt(now)) {
            leases.put(name, new Lease(name, holder, now, OptionalLong.empty(), true));
        }
    }

    @Override
    public synchronized java.util.Set<String> heldNames(String prefix, Instant now) {
        java.util.Set<String> out = new java.util.HashSet<>();
        leases.values()
                .forEach(
                        l -> {
                            if (l.name().startsWith(prefix) && l.heldAt(now)) {
                                out.add(l.name());
                            }
                        });
        return out;
    }

    @Override
    public Optional<Lease> find(String name) {
        return Optional.ofNullable(leases.get(name));
    }
}
