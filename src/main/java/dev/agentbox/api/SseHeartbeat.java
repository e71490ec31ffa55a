package dev.agentbox.api;

import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * A comment sent on a quiet SSE stream every {@code agentbox.sse.heartbeat-ms} (15 s by default). A
 * client that went away is only noticed on a write; without the heartbeat its stream (and the quota
 * slot it holds) would stay open until the source spoke again. {@code stop} runs once the sink is
 * closed or a write fails. A period under 100 ms is taken as 100 ms.
 */
@ApplicationScoped
public class SseHeartbeat {

    @Inject
    @ConfigProperty(name = "agentbox.sse.heartbeat-ms")
    long periodMs;

    @Resource ManagedScheduledExecutorService scheduler;

    /** Starts the heartbeat of one stream; cancel the future when the stream ends. */
    ScheduledFuture<?> start(SseEventSink sink, Sse sse, String comment, Runnable stop) {
        long period = Math.max(100, periodMs);
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
                period,
                period,
                TimeUnit.MILLISECONDS);
    }
}
