package dev.agentbox.platform;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A thread factory of named daemon threads, the default for providers built outside a container.
 */
public final class DaemonThreads implements ThreadFactory {

    private final String prefix;
    private final AtomicInteger seq = new AtomicInteger();

    public DaemonThreads(String prefix) {
        this.prefix = prefix;
    }

    @Override
    public Thread newThread(Runnable r) {
        Thread t = new Thread(r, prefix + "-" + seq.incrementAndGet());
        t.setDaemon(true);
        return t;
    }
}
