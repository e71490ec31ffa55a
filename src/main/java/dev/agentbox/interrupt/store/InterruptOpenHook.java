package dev.agentbox.interrupt.store;

import jakarta.persistence.EntityManager;

/**
 * Work that must commit with a new interrupt: {@link JpaInterruptStore#open} calls every hook once,
 * in its transaction on {@code em}, right after the insert that created the row. Of several servers
 * opening the same call at once only the one whose insert wins calls it (the others' inserts fail
 * on the unique call key and roll back); an open that finds the row calls nothing. So a hook runs
 * exactly once per interrupt, whatever asks for it (an approval, a client tool). A hook that throws
 * rolls the interrupt back with it.
 */
public interface InterruptOpenHook {

    void opened(EntityManager em, Interrupt interrupt);
}
