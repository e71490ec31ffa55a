package dev.agentbox.run.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The behaviour every {@link ViewerStore} must have; run against each implementation. */
public abstract class ViewerStoreContract {

    static final Duration TTL = Duration.ofSeconds(5);
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    protected abstract ViewerStore store();

    private final RunRef run = new RunRef(UUID.randomUUID().toString());
    private final RunRef other = new RunRef(UUID.randomUUID().toString());

    @Test
    void aRunNobodyViewsIsNotWatched() {
        assertThat(store().watched(run, T0)).isFalse();
    }

    @Test
    void aViewerOnAnyNodeKeepsTheRunWatchedUntilItsRowExpires() {
        store().present(run, "node-b", T0, TTL);

        assertThat(store().watched(run, T0.plus(TTL).minusMillis(1))).isTrue();
        assertThat(store().watched(run, T0.plus(TTL)))
                .as("a dead node's row stops counting")
                .isFalse();
        assertThat(store().watched(other, T0)).isFalse();
    }

    @Test
    void oneNodeLeavingDoesNotUnwatchARunAnotherNodeStillViews() {
        store().present(run, "node-a", T0, TTL);
        store().present(run, "node-b", T0, TTL);

        store().absent(run, "node-a");

        assertThat(store().watched(run, T0)).isTrue();
        store().absent(run, "node-b");
        assertThat(store().watched(run, T0)).isFalse();
    }

    @Test
    void presentTwiceExtendsTheSameRow() {
        store().present(run, "node-a", T0, TTL);
        store().present(run, "node-a", T0.plusSeconds(4), TTL);

        assertThat(store().watched(run, T0.plusSeconds(8))).isTrue();
        store().absent(run, "node-a");
        assertThat(store().watched(run, T0)).isFalse();
    }

    @Test
    void renewExtendsANodesRowsAndRecreatesAMissingOne() {
        store().present(run, "node-a", T0, TTL);
        store().present(other, "node-b", T0, TTL);

        store().renew("node-a", Set.of(run, other), T0.plusSeconds(4), TTL);

        assertThat(store().watched(run, T0.plusSeconds(8))).as("extended").isTrue();
        assertThat(store().watched(other, T0.plusSeconds(8)))
                .as("node-a's row for it was re-created")
                .isTrue();
        store().absent(other, "node-a");
        assertThat(store().watched(other, T0.plusSeconds(6)))
                .as("node-b's own row was not extended")
                .isFalse();
        store().renew("node-a", Set.of(), T0.plusSeconds(8), TTL);
        assertThat(store().watched(run, T0.plusSeconds(9)))
                .as("an empty renew changes nothing")
                .isFalse();
        store().absent(run, "node-a");
    }
}
