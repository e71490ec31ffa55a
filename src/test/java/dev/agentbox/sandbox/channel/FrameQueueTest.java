package dev.agentbox.sandbox.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FrameQueueTest {

    private static final Duration SHORT = Duration.ofMillis(20);
    private static final Duration LONG = Duration.ofSeconds(5);

    @Test
    void framesComeInOrderThenTheEndAfterTheLastOne() throws Exception {
        FrameQueue q = new FrameQueue(4);
        q.put(new byte[] {1});
        q.put(new byte[] {2});
        q.end();

        assertThat(q.next(LONG)).containsExactly(1);
        assertThat(q.next(LONG)).containsExactly(2);
        assertThat(q.next(LONG)).isSameAs(FrameQueue.END);
    }

    @Test
    void aSilentStreamGivesNullAfterTheWait() throws Exception {
        assertThat(new FrameQueue(4).next(SHORT)).isNull();
    }

    @Test
    void aFullQueueBlocksTheReaderUntilTheConsumerTakesAFrame() throws Exception {
        FrameQueue q = new FrameQueue(1);
        q.put(new byte[] {1});
        CountDownLatch putDone = new CountDownLatch(1);
        Thread reader =
                new Thread(
                        () -> {
                            q.put(new byte[] {2});
                            putDone.countDown();
                        });
        reader.start();

        assertThat(putDone.await(200, TimeUnit.MILLISECONDS)).as("blocked while full").isFalse();
        assertThat(q.next(LONG)).containsExactly(1);
        assertThat(putDone.await(5, TimeUnit.SECONDS)).as("released by the take").isTrue();
        assertThat(q.next(LONG)).containsExactly(2);
        reader.join();
    }

    @Test
    void closingReleasesABlockedReaderAndEndsTheConsumersStream() throws Exception {
        FrameQueue q = new FrameQueue(1);
        q.put(new byte[] {1});
        CountDownLatch putDone = new CountDownLatch(1);
        Thread reader =
                new Thread(
                        () -> {
                            q.put(new byte[] {2});
                            putDone.countDown();
                        });
        reader.start();

        q.close();

        assertThat(putDone.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(q.closed()).isTrue();
        assertThat(q.next(LONG)).isSameAs(FrameQueue.END);
        reader.join();
    }

    @Test
    void anInterruptedReaderKeepsItsFrameAndItsInterrupt() throws Exception {
        FrameQueue q = new FrameQueue(1);
        q.put(new byte[] {1});
        boolean[] interrupted = new boolean[1];
        Thread reader =
                new Thread(
                        () -> {
                            q.put(new byte[] {2});
                            interrupted[0] = Thread.currentThread().isInterrupted();
                        });
        reader.start();
        reader.interrupt();
        Thread.onSpinWait();

        assertThat(q.next(LONG)).containsExactly(1);
        assertThat(q.next(LONG)).as("the frame was not dropped").containsExactly(2);
        reader.join();
        assertThat(interrupted[0]).isTrue();
    }
}
