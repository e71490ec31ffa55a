package dev.agentbox.api;

import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A comment sent on a quiet SSE stream every 15 s. A client that went away is only noticed on a
 * write; without the heartbeat its stream (and the quota slot it holds) would stay open until the
 * source spoke again. {@code stop} runs once the sink is closed or a write fails.
 */
final class SseHeartbeat {

    static final long PERIOD_SECONDS = 15;

    private SseHeartbeat() {}

    static ScheduledFuture<?> start(
            ScheduledExecutorService scheduler,
            SseEventSink sink,
            Sse sse,
            String comment,
            Runnable stop) {
        return scheduler.scheduleWithFixedDelay(
                () -> {
                    if (sink.isClosed()) {
                        stop.run();
                        return;
                    }
                    sink.send(sse.newEventBuilder().comment(comment).build())
                            .whenComplete(
                                    (ok, failed) -> {
                                        if (failed != null) {
                                            stop.run();
                                        }
                                    });
                },
                PERIOD_SECONDS,
                PERIOD_SECONDS,
                TimeUnit.SECONDS);
    }
}
