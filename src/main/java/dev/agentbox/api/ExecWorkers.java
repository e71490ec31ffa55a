package dev.agentbox.api;

import dev.agentbox.platform.DaemonThreads;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The threads that run {@code POST /sandboxes/{key}/exec} commands while their request thread
 * watches the client ({@link DisconnectAwareExec}).
 *
 * <p>Why not the server's managed executor: that is the container's own thread pool, which also
 * runs the HTTP requests. Each waiting exec request holds one of its threads and needs a second for
 * its command; with many execs at once every pool thread can be a request waiting for a command
 * that is queued behind it (measured: concurrent timed-out execs then hung for minutes). This pool
 * grows with its callers instead: one thread per exec in flight, which the tenants' {@code
 * concurrent-execs} quota already bounds, plus abandoned execs for at most their kill grace; idle
 * threads end after a minute.
 */
@ApplicationScoped
public class ExecWorkers {

    private final ThreadPoolExecutor pool =
            new ThreadPoolExecutor(
                    0,
                    Integer.MAX_VALUE,
                    60,
                    TimeUnit.SECONDS,
                    new SynchronousQueue<>(),
                    new DaemonThreads("agentbox-exec"));

    public ExecutorService executor() {
        return pool;
    }

    @PreDestroy
    void stop() {
        pool.shutdownNow();
    }
}
