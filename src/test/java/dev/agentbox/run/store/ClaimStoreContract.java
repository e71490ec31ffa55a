package dev.agentbox.run.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link ClaimStore} must have (TK-01, TK-10); run in memory, on Derby and on
 * PostgreSQL.
 */
public abstract class ClaimStoreContract extends RunStoresFixture {

    @Test
    void theEpochIsAbsentBeforeTheFirstClaimThenOneThenTwo() {
        RunRef run = create("r-epoch").ref();
        assertThat(claims.epoch(run)).isEmpty();
        assertThat(claims.claim(run, "node-a")).hasValue(1);
        assertThat(claims.epoch(run)).hasValue(1);
        assertThat(claims.claim(run, "node-b")).hasValue(2);
        assertThat(claims.epoch(run)).hasValue(2);
    }

    @Test
    void theRunRecordShowsTheClaimsEpochAsDriverEpoch() {
        RunRef run = create("r-shown").ref();
        claims.claim(run, "node-a");
        claims.claim(run, "node-b");
        assertThat(runs.findById(run).orElseThrow().driverEpoch()).hasValue(2);
        assertThat(runs.find(tenant, "r-shown").orElseThrow().driverEpoch()).hasValue(2);
        assertThat(runs.list(tenant, Optional.empty(), Optional.empty(), 10).get(0).driverEpoch())
                .hasValue(2);
    }

    @Test
    void reClaimingByTheSameNodeStillStartsANewEpoch() {
        RunRef run = create("r-same-node").ref();
        assertThat(claims.claim(run, "node-a")).hasValue(1);
        assertThat(claims.claim(run, "node-a"))
                .as("the old driver in this node may still be running")
                .hasValue(2);
    }

    @Test
    void aClaimOfAnUnknownRunIsRefused() {
        RunRef unknown = new RunRef("no-such-run");
        assertThat(claims.claim(unknown, "node-a")).isEmpty();
        assertThat(claims.epoch(unknown)).isEmpty();
    }

    @Test
    void aClaimOfATerminalRunIsRefusedAndLeavesTheEpochAsItWas() {
        RunRef run = claimedRun();
        log.finishRun(run, 1, RunStatus.COMPLETED, T0, Optional.empty());
        assertThat(claims.claim(run, "node-b")).isEmpty();
        assertThat(claims.epoch(run)).hasValue(1);
        assertThat(runs.findById(run).orElseThrow().driverEpoch()).hasValue(1);
    }

    @Test
    void recordWritesNeverChangeTheEpoch() {
        RunRef run = claimedRun();
        runs.setCancelRequested(run, Optional.of(true));
        runs.setDetachedSince(run, Optional.of(T0));
        runs.setSandboxKey(run, Optional.of("sbx"));
        runs.setUsage(run, Optional.empty());
        assertThat(claims.epoch(run)).hasValue(1);
    }

    @Test
    void concurrentClaimsGetDistinctConsecutiveEpochs() throws Exception {
        RunRef run = create("r-concurrent").ref();
        int contenders = 6;
        ExecutorService pool = Executors.newFixedThreadPool(contenders);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<OptionalLong>> results = new ArrayList<>();
            for (int i = 0; i < contenders; i++) {
                String node = "node-" + i;
                results.add(
                        pool.submit(
                                () -> {
                                    start.await();
                                    return claims.claim(run, node);
                                }));
            }
            start.countDown();
            List<Long> epochs = new ArrayList<>();
            for (Future<OptionalLong> r : results) {
                epochs.add(r.get().orElseThrow());
            }
            assertThat(epochs).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L, 6L);
            assertThat(claims.epoch(run)).hasValue(contenders);
        } finally {
            pool.shutdownNow();
        }
    }
}
