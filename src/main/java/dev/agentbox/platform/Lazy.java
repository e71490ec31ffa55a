package dev.agentbox.platform;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A value made on first use, once, whichever thread asks first: later callers get the same value
 * without locking. For collaborators too costly or too early to make in a constructor (a Docker
 * client, a thread pool, a check of the engine's host).
 *
 * <p>The maker runs under this object's lock, so it runs at most once even when two threads ask at
 * the same moment; a maker that throws leaves nothing made, and the next call tries again.
 */
public final class Lazy<T> implements Supplier<T> {

    private final Supplier<? extends T> maker;
    private volatile T value;

    private Lazy(Supplier<? extends T> maker) {
        this.maker = Objects.requireNonNull(maker, "maker");
    }

    public static <T> Lazy<T> of(Supplier<? extends T> maker) {
        return new Lazy<>(maker);
    }

    @Override
    public T get() {
        T v = value;
        if (v == null) {
            synchronized (this) {
                if (value == null) {
                    value = Objects.requireNonNull(maker.get(), "a lazy value");
                }
                v = value;
            }
        }
        return v;
    }

    /** The value if it was made; never makes it (for closing what exists). */
    public Optional<T> ifMade() {
        return Optional.ofNullable(value);
    }
}
