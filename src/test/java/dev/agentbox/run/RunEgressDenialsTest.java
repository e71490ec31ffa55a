package dev.agentbox.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.sandbox.spi.EgressAudit;
import dev.agentbox.sandbox.spi.SandboxHandle;
import jakarta.json.JsonObject;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** How a run hears of its sandbox's egress refusals (EG-07, EG-17, EG-22). */
class RunEgressDenialsTest {

    private final ChunkFactory chunks = new ChunkFactory("r-1", "t-1", () -> 0L);
    private final AtomicLong nanos = new AtomicLong();
    private final List<String> reported = new ArrayList<>();

    /** An audit over a list that grows, read by index as position. */
    private static final class ListAudit implements EgressAudit {
        final List<Refusal> refusals = new ArrayList<>();
        int reads;
        boolean broken;
        boolean held = true;
        volatile String endReadOn;

        @Override
        public long end() {
            endReadOn = Thread.currentThread().getName();
            if (broken) {
                throw new IllegalStateException("gateway gone");
            }
            return refusals.size();
        }

        @Override
        public Refusals since(long position) {
            reads++;
            if (broken) {
                throw new IllegalStateException("gateway gone");
            }
            return new Refusals(
                    List.copyOf(refusals.subList((int) position, refusals.size())),
                    refusals.size(),
                    held);
        }
    }

    private RunEgressDenials.Reporter reporter() {
        return (host, port, count) -> reported.add(host + ":" + port + "x" + count);
    }

    private static String value(JsonObject chunk) {
        assertThat(chunk.getString("type")).isEqualTo("CUSTOM");
        assertThat(chunk.getString("name")).isEqualTo("egress.denied");
        return chunk.getJsonObject("value").toString();
    }

    @Test
    void aRunIsToldOnlyOfTheRefusalsMadeWhileItIsDriven() {
        ListAudit audit = new ListAudit();
        audit.refusals.add(new EgressAudit.Refusal("before.example", 443));
        RunEgressDenials d = new RunEgressDenials(audit, audit.end(), nanos::get);
        audit.refusals.add(new EgressAudit.Refusal("registry.npmjs.org", 443));
        List<JsonObject> out = d.drain(chunks, true, reporter());
        assertThat(out).hasSize(1);
        assertThat(value(out.get(0)))
                .isEqualTo("{\"host\":\"registry.npmjs.org\",\"port\":443,\"count\":1}");
    }

    @Test
    void refusalsOfOneReadAreMergedPerDestinationInTheOrderFirstSeen() {
        ListAudit audit = new ListAudit();
        RunEgressDenials d = new RunEgressDenials(audit, 0, nanos::get);
        audit.refusals.add(new EgressAudit.Refusal("a.example", 443));
        audit.refusals.add(new EgressAudit.Refusal("b.example", 80));
        audit.refusals.add(new EgressAudit.Refusal("a.example", 443));
        nanos.addAndGet(RunEgressDenials.POLL_MS * 1_000_000);
        List<JsonObject> out = d.drain(chunks, false, reporter());
        assertThat(out.stream().map(RunEgressDenialsTest::value))
                .containsExactly(
                        "{\"host\":\"a.example\",\"port\":443,\"count\":2}",
                        "{\"host\":\"b.example\",\"port\":80,\"count\":1}");
        assertThat(reported).containsExactly("a.example:443x2", "b.example:80x1");
        assertThat(d.drain(chunks, true, reporter())).isEmpty();
    }

    @Test
    void theGatewayIsReadAtMostOnceAPollIntervalUntilTheAgentExits() {
        ListAudit audit = new ListAudit();
        RunEgressDenials d = new RunEgressDenials(audit, 0, nanos::get);
        audit.refusals.add(new EgressAudit.Refusal("a.example", 443));
        assertThat(d.drain(chunks, false, reporter())).isEmpty();
        assertThat(audit.reads).isZero();
        nanos.addAndGet(RunEgressDenials.POLL_MS * 1_000_000 - 1);
        assertThat(d.drain(chunks, false, reporter())).isEmpty();
        assertThat(d.drain(chunks, true, reporter())).hasSize(1);
        assertThat(audit.reads).isEqualTo(1);
    }

    @Test
    void pastTheCapOfARunTheRestIsOneChunkAtTheEnd() {
        ListAudit audit = new ListAudit();
        RunEgressDenials d = new RunEgressDenials(audit, 0, nanos::get);
        for (int i = 0; i < RunEgressDenials.PER_RUN + 3; i++) {
            audit.refusals.add(new EgressAudit.Refusal("h" + i + ".example", 443));
        }
        List<JsonObject> out = d.drain(chunks, true, reporter());
        assertThat(out).hasSize(RunEgressDenials.PER_RUN + 1);
        assertThat(value(out.get(out.size() - 1)))
                .isEqualTo("{\"host\":\"*\",\"port\":0,\"count\":3}");
    }

    @Test
    void aReadThatFailsIsTriedAgainAtTheNextPollFromTheSamePosition() {
        ListAudit audit = new ListAudit();
        RunEgressDenials d = new RunEgressDenials(audit, 0, nanos::get);
        audit.refusals.add(new EgressAudit.Refusal("a.example", 443));
        audit.broken = true;
        nanos.addAndGet(RunEgressDenials.POLL_MS * 1_000_000);
        assertThat(d.drain(chunks, false, reporter())).isEmpty();
        audit.broken = false;
        assertThat(d.drain(chunks, false, reporter())).isEmpty(); // not before the next poll

        nanos.addAndGet(RunEgressDenials.POLL_MS * 1_000_000);
        List<JsonObject> out = d.drain(chunks, false, reporter());

        assertThat(out)
                .extracting(RunEgressDenialsTest::value)
                .containsExactly("{\"host\":\"a.example\",\"port\":443,\"count\":1}");
        assertThat(audit.reads).isEqualTo(2);
    }

    @Test
    void aGatewayThatCannotBeReadSeveralTimesInARowCostsTheRunOnlyItsRefusals() {
        ListAudit audit = new ListAudit();
        audit.broken = true;
        RunEgressDenials d = new RunEgressDenials(audit, 0, nanos::get);
        for (int i = 0; i < RunEgressDenials.GIVE_UP; i++) {
            assertThat(d.drain(chunks, true, reporter())).isEmpty();
        }
        audit.broken = false;
        audit.refusals.add(new EgressAudit.Refusal("a.example", 443));

        assertThat(d.drain(chunks, true, reporter())).isEmpty();
        assertThat(audit.reads).isEqualTo(RunEgressDenials.GIVE_UP);
    }

    @Test
    void aSuccessfulReadStartsTheCountOfFailuresAgain() {
        ListAudit audit = new ListAudit();
        RunEgressDenials d = new RunEgressDenials(audit, 0, nanos::get);
        for (int i = 0; i < RunEgressDenials.GIVE_UP - 1; i++) {
            audit.broken = true;
            assertThat(d.drain(chunks, true, reporter())).isEmpty();
        }
        audit.broken = false;
        assertThat(d.drain(chunks, true, reporter())).isEmpty();
        audit.broken = true;
        assertThat(d.drain(chunks, true, reporter())).isEmpty();
        audit.broken = false;
        audit.refusals.add(new EgressAudit.Refusal("a.example", 443));

        assertThat(d.drain(chunks, true, reporter())).hasSize(1);
    }

    /** A sandbox whose only answer is its egress audit (or the failure to find it). */
    private static SandboxHandle sandboxWith(Optional<EgressAudit> audit, boolean gatewayGone) {
        return (SandboxHandle)
                Proxy.newProxyInstance(
                        SandboxHandle.class.getClassLoader(),
                        new Class<?>[] {SandboxHandle.class},
                        (proxy, method, args) -> {
                            if (!method.getName().equals("egressAudit")) {
                                throw new UnsupportedOperationException(method.getName());
                            }
                            if (gatewayGone) {
                                throw new IllegalStateException("gateway gone");
                            }
                            return audit;
                        });
    }

    @Test
    void whereTheRefusalsStandIsReadOffTheDriversThreadAndTheRunHearsOnlyOfLaterOnes() {
        ListAudit audit = new ListAudit();
        audit.refusals.add(new EgressAudit.Refusal("before.example", 443));
        RunEgressDenials d =
                RunEgressDenials.startReading("run r-1", sandboxWith(Optional.of(audit), false))
                        .get()
                        .orElseThrow();
        assertThat(audit.endReadOn).isNotNull().isNotEqualTo(Thread.currentThread().getName());
        audit.refusals.add(new EgressAudit.Refusal("after.example", 443));
        List<JsonObject> out = d.drain(chunks, true, reporter());
        assertThat(out).hasSize(1);
        assertThat(value(out.get(0))).contains("after.example");
    }

    @Test
    void aSandboxWithoutAReadableGatewayReadsAsNoRefusals() {
        assertThat(
                        RunEgressDenials.startReading(
                                        "run r-1", sandboxWith(Optional.empty(), false))
                                .get())
                .isEmpty();
        assertThat(
                        RunEgressDenials.startReading(
                                        "run r-1", sandboxWith(Optional.empty(), true))
                                .get())
                .isEmpty();
    }

    @Test
    void aGatewayFoundWithoutTheSecretsGetsThemBackOnceUntilItHoldsThemAgain_EG22() {
        ListAudit audit = new ListAudit();
        List<String> restores = new ArrayList<>();
        RunEgressDenials d =
                new RunEgressDenials(
                        audit,
                        () -> {
                            restores.add("restore");
                            audit.held = true;
                            return java.util.Set.of("API_KEY");
                        },
                        0,
                        nanos::get);
        audit.held = false;
        assertThat(d.drain(chunks, true, reporter())).isEmpty();
        assertThat(d.drain(chunks, true, reporter())).isEmpty();
        assertThat(restores).hasSize(1);
        audit.held = false; // made again once more
        d.drain(chunks, true, reporter());
        assertThat(restores).hasSize(2);
        assertThat(d.unrepairable()).isEmpty();
    }

    @Test
    void aMissingValueThisServerGivesBackIsToldOnceAndTheRunGoesOn_EG22() {
        ListAudit audit = new ListAudit();
        RunEgressDenials d =
                new RunEgressDenials(audit, () -> java.util.Set.of("API_KEY"), 0, nanos::get);
        audit.refusals.add(new EgressAudit.Refusal("api.anthropic.com", 443, "API_KEY"));
        audit.refusals.add(new EgressAudit.Refusal("api.anthropic.com", 443, "API_KEY"));
        List<JsonObject> out = d.drain(chunks, true, reporter());
        assertThat(out).hasSize(1);
        assertThat(out.get(0).getString("name")).isEqualTo("egress.secret-missing");
        assertThat(out.get(0).getJsonObject("value").toString())
                .isEqualTo("{\"name\":\"API_KEY\",\"host\":\"api.anthropic.com\"}");
        assertThat(reported).as("not an ordinary refusal").isEmpty();
        assertThat(d.unrepairable()).isEmpty();
    }

    @Test
    void aMissingValueNoServerHereHoldsEndsTheReading_EG22() {
        ListAudit audit = new ListAudit();
        RunEgressDenials d = new RunEgressDenials(audit, java.util.Set::of, 0, nanos::get);
        audit.refusals.add(new EgressAudit.Refusal("api.openai.com", 443, "OPENAI_API_KEY"));
        d.drain(chunks, true, reporter());
        assertThat(d.unrepairable())
                .contains(new EgressAudit.Refusal("api.openai.com", 443, "OPENAI_API_KEY"));
    }

    @Test
    void aReaderThatCouldNotFindWhereTheRefusalsStoodStartsFromTheEndAtItsFirstGoodRead_EG22() {
        ListAudit audit = new ListAudit();
        audit.refusals.add(new EgressAudit.Refusal("before.example", 443));
        RunEgressDenials d =
                new RunEgressDenials(audit, null, RunEgressDenials.UNKNOWN, nanos::get);
        audit.broken = true;
        assertThat(d.drain(chunks, true, reporter())).isEmpty();
        audit.broken = false;
        assertThat(d.drain(chunks, true, reporter())).as("not an earlier refusal").isEmpty();
        audit.refusals.add(new EgressAudit.Refusal("after.example", 443));
        assertThat(d.drain(chunks, true, reporter())).hasSize(1);
    }
}
