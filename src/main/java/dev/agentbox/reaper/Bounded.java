package dev.agentbox.reaper;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.function.Function;

/**
 * Maps items with at most {@code parallelism} calls in flight, results in item order. The reaper's
 * work per sandbox (probe) and per run (finalize) is independent — each run is taken through its
 * own lease and claim — and is mostly waiting for Docker execs, so a few at a time shorten a sweep
 * without loading the engine. {@code fn} must not throw.
 */
final class Bounded {

    private Bounded() {}

    static <T, R> List<R> map(
            List<T> items, Function<T, R> fn, Executor executor, int parallelism) {
        if (executor == null || parallelism <= 1 || items.size() <= 1) {
            return items.stream().map(fn).toList();
        }
        Semaphore permits = new Semaphore(parallelism);
        List<CompletableFuture<R>> futures = new ArrayList<>(items.size());
        for (T item : items) {
            permits.acquireUninterruptibly();
            CompletableFuture<R> f;
            try {
                f = CompletableFuture.supplyAsync(() -> fn.apply(item), executor);
            } catch (RejectedExecutionException e) {
                f =
                        CompletableFuture.completedFuture(
                                fn.apply(item)); // executor shutting down: do it here
            }
            futures.add(f.whenComplete((r, t) -> permits.release()));
        }
        return futures.stream().map(CompletableFuture::join).toList();
    }
}
