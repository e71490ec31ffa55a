package dev.agentbox.api;

import dev.agentbox.quota.Slot;
import jakarta.enterprise.context.RequestScoped;
import java.util.Optional;

/**
 * The {@code concurrent-execs} slot of the current {@link ExecQuota} request. {@link
 * ExecQuotaFilter} puts it here and releases it when the response leaves the resource — unless the
 * resource took it over ({@link #take}) because the work outlives that moment (an exec answered as
 * a stream, see {@link DisconnectAwareExec}).
 */
@RequestScoped
public class HeldExecSlot {

    private Slot slot;

    void hold(Slot s) {
        this.slot = s;
    }

    /** The slot, now the caller's to close; empty when there is none or it was taken. */
    public Optional<Slot> take() {
        Slot s = slot;
        slot = null;
        return Optional.ofNullable(s);
    }
}
