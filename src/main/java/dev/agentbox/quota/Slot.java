package dev.agentbox.quota;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One unit of a tenant's quota, held until closed. Closing is idempotent, so every exit path
 * (success, failure, client gone, process exit) may close it without counting twice.
 */
public final class Slot implements AutoCloseable {

    /** A slot that holds nothing: no limit applies, or what it stands for is already counted. */
    public static final Slot NONE = new Slot(() -> {});

    private final Runnable release;
    private final AtomicBoolean open = new AtomicBoolean(true);

    Slot(Runnable release) {
        this.release = release;
    }

    @Override
    public void close() {
        if (open.compareAndSet(true, false)) {
            release.run();
        }
    }
}
