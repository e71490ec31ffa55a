package dev.agentbox.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LazyTest {

    @Test
    void theValueIsMadeOnFirstUseOnlyAndKept() {
        AtomicInteger made = new AtomicInteger();
        Lazy<String> lazy = Lazy.of(() -> "v" + made.incrementAndGet());

        assertThat(lazy.ifMade()).as("not made before use").isEmpty();
        assertThat(made).hasValue(0);
        assertThat(lazy.get()).isEqualTo("v1");
        assertThat(lazy.get()).isEqualTo("v1");
        assertThat(lazy.ifMade()).contains("v1");
        assertThat(made).hasValue(1);
    }

    @Test
    void threadsAskingAtOnceGetOneValueMadeOnce() throws Exception {
        AtomicInteger made = new AtomicInteger();
        Lazy<Object> lazy =
                Lazy.of(
                        () -> {
                            made.incrementAndGet();
                            return new Object();
                        });
        CountDownLatch go = new CountDownLatch(1);
        List<Object> seen = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Thread t =
                    new Thread(
                            () -> {
                                try {
                                    go.await();
                                } catch (InterruptedException e) {
                                    return;
                                }
                                seen.add(lazy.get());
                            });
            t.start();
            threads.add(t);
        }
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }

        assertThat(made).hasValue(1);
        assertThat(seen).hasSize(8).allSatisfy(v -> assertThat(v).isSameAs(seen.get(0)));
    }

    @Test
    void aMakerThatFailsLeavesNothingMadeAndTheNextCallTriesAgain() {
        AtomicInteger calls = new AtomicInteger();
        Lazy<String> lazy =
                Lazy.of(
                        () -> {
                            if (calls.incrementAndGet() == 1) {
                                throw new IllegalStateException("engine not there yet");
                            }
                            return "ok";
                        });

        assertThatThrownBy(lazy::get).hasMessageContaining("not there yet");
        assertThat(lazy.ifMade()).isEmpty();
        assertThat(lazy.get()).isEqualTo("ok");
    }
}
