package dev.agentbox.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.store.EventLog;
import dev.agentbox.run.store.InMemoryRuns;
import dev.agentbox.run.store.LoggedChunk;
import dev.agentbox.run.store.NewRun;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.run.store.RunStatus;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * One reader's stream over a finished run's log, with each source made to misbehave as it can under
 * load.
 */
class RunEventStreamTest {

    static final int CHUNKS = 12;

    private final InMemoryRuns store = new InMemoryRuns();
    private final RunRef run = finishedRun();

    private RunRef finishedRun() {
        RunRef ref =
                store.create(
                                NewRun.durable(
                                        "tenant",
                                        "run-1",
                                        "thread-1",
                                        Harness.COMMAND,
                                        Instant.now()))
                        .orElseThrow()
                        .ref();
        long epoch = store.claim(ref, "node-a").orElseThrow();
        List<JsonObject> chunks = new ArrayList<>();
        for (int i = 1; i <= CHUNKS; i++) {
            chunks.add(
                    Json.createObjectBuilder()
                            .add("type", i == CHUNKS ? "RUN_FINISHED" : "TEXT_MESSAGE_CONTENT")
                            .add("delta", "d" + i)
                            .build());
        }
        store.append(ref, epoch, chunks.subList(0, 5));
        store.append(ref, epoch, chunks.subList(5, CHUNKS));
        store.finishRun(ref, epoch, RunStatus.COMPLETED, Instant.now(), Optional.empty());
        return ref;
    }

    private static List<Long> received(RunEventStream stream, RunRef run, long after) {
        List<Long> seqs = new ArrayList<>();
        RunEventStream.End end =
                stream.pump(
                        run,
                        after,
                        new RunEventStream.Sink() {
                            @Override
                            public boolean send(LoggedChunk chunk) {
                                seqs.add(chunk.seq());
                                return true;
                            }

                            @Override
                            public boolean heartbeat() {
                                return true;
                            }
                        });
        assertThat(end).isEqualTo(RunEventStream.End.TERMINAL);
        return seqs;
    }

    private static List<Long> range(long from, long to) {
        return LongStream.rangeClosed(from, to).boxed().toList();
    }

    /**
     * The log, except that its first read misses the first {@code missing} chunks after the offset,
     * as a Derby read overlapping an append's commit can.
     */
    private EventLog logWhoseFirstReadMisses(int missing) {
        AtomicBoolean first = new AtomicBoolean(true);
        return (EventLog)
                Proxy.newProxyInstance(
                        EventLog.class.getClassLoader(),
                        new Class<?>[] {EventLog.class},
                        (proxy, method, args) -> {
                            Object result;
                            try {
                                result = method.invoke(store, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                            if (method.getName().equals("read") && first.getAndSet(false)) {
                                List<?> rows = (List<?>) result;
                                return rows.subList(Math.min(missing, rows.size()), rows.size());
                            }
                            return result;
                        });
    }

    @Test
    void aReaderGetsEveryChunkAfterItsOffsetOnceAndInOrder() {
        RunEventStream stream = new RunEventStream(store, store, new RunEventHub());
        assertThat(received(stream, run, 0)).isEqualTo(range(1, CHUNKS));
        assertThat(received(stream, run, 7)).isEqualTo(range(8, CHUNKS));
    }

    @Test
    void aTableReadMissingTheFirstChunksOfAnAppendIsNotTakenAsItCame() {
        RunEventStream stream =
                new RunEventStream(logWhoseFirstReadMisses(3), store, new RunEventHub());
        assertThat(received(stream, run, 2)).isEqualTo(range(3, CHUNKS));
    }

    @Test
    void memoryThatDoesNotContinueTheReaderExactlyIsNotTrusted() {
        RunEventHub hub =
                new RunEventHub() {
                    @Override
                    public Optional<List<LoggedChunk>> recentAfter(RunRef r, long afterSeq) {
                        // A buffer with a hole at seq 6, which memory must never serve.
                        return Optional.of(
                                store.read(r, afterSeq, 100).stream()
                                        .filter(c -> c.seq() != 6)
                                        .toList());
                    }
                };
        RunEventStream stream = new RunEventStream(store, store, hub);
        assertThat(received(stream, run, 0)).isEqualTo(range(1, CHUNKS));
    }
}
