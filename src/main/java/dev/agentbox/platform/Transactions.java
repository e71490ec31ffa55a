package dev.agentbox.platform;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import java.util.function.Supplier;

/**
 * Runs work in one JTA transaction, so that writes through several stores (each a
 * {@code @Transactional} bean, which joins it) commit together: one commit where each store call
 * would commit on its own, and no instant between them at which another server sees half of it. An
 * unchecked exception rolls it all back.
 */
@ApplicationScoped
public class Transactions {

    @Transactional
    public <T> T inOne(Supplier<T> work) {
        return work.get();
    }
}
