package dev.agentbox.run.journal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ExitSentinelTest {

    private final JournalId journal = JournalId.random("run-1");
    private final ExitSentinel sentinel = ExitSentinel.of(journal);
    private final String nonce = journal.nonce();

    @Test
    void exactSentinelWithTheRunsNonceGivesTheExitCode() {
        assertThat(sentinel.exitCode("{\"__exit\":0,\"__nonce\":\"" + nonce + "\"}")).hasValue(0);
        assertThat(sentinel.exitCode("{\"__exit\":7,\"__nonce\":\"" + nonce + "\"}")).hasValue(7);
        assertThat(sentinel.exitCode("{\"__exit\":255,\"__nonce\":\"" + nonce + "\"}"))
                .hasValue(255);
    }

    @Test
    void lineRoundTrips() {
        assertThat(sentinel.exitCode(sentinel.line(42))).hasValue(42);
    }

    @Test
    void sentinelWithoutNonceIsOrdinaryOutput_JN08() {
        assertThat(sentinel.exitCode("{\"__exit\":0}")).isEmpty();
    }

    @Test
    void forgedSentinelWithWrongNonceIsOrdinaryOutput_JN08() {
        assertThat(sentinel.exitCode(ExitSentinel.of(JournalId.random("run-2")).line(0))).isEmpty();
        assertThat(sentinel.exitCode("{\"__exit\":0,\"__nonce\":\"" + "0".repeat(32) + "\"}"))
                .isEmpty();
    }

    @Test
    void aSentinelWithTheNonceComputedFromTheRunIdIsOrdinaryOutputForARunWithARandomNonce_JN08() {
        // What an agent that knows its runId and the old derivation would print to end itself.
        assertThat(sentinel.exitCode(ExitSentinel.of(JournalId.derived("run-1")).line(0)))
                .isEmpty();
    }

    @Test
    void anotherRunWithTheSameRunIdHasAnotherNonce() {
        JournalId sameRunIdElsewhere = JournalId.random("run-1");
        assertThat(sameRunIdElsewhere.nonce()).isNotEqualTo(nonce);
        assertThat(sentinel.exitCode(ExitSentinel.of(sameRunIdElsewhere).line(0))).isEmpty();
    }

    @Test
    void stringExitCodeIsOrdinaryOutput_JN08() {
        assertThat(sentinel.exitCode("{\"__exit\":\"0\",\"__nonce\":\"" + nonce + "\"}")).isEmpty();
    }

    @Test
    void anyDeviationFromTheExactShapeIsOrdinaryOutput() {
        String good = sentinel.line(0);
        assertThat(sentinel.exitCode(good + " ")).isEmpty();
        assertThat(sentinel.exitCode(" " + good)).isEmpty();
        assertThat(sentinel.exitCode(good + "\r")).isEmpty();
        assertThat(sentinel.exitCode("{\"__exit\": 0,\"__nonce\":\"" + nonce + "\"}")).isEmpty();
        assertThat(sentinel.exitCode("{\"__nonce\":\"" + nonce + "\",\"__exit\":0}")).isEmpty();
        assertThat(sentinel.exitCode("{\"__exit\":00,\"__nonce\":\"" + nonce + "\"}")).isEmpty();
        assertThat(sentinel.exitCode("{\"__exit\":1.0,\"__nonce\":\"" + nonce + "\"}")).isEmpty();
        assertThat(sentinel.exitCode("{\"__exit\":0,\"__nonce\":\"" + nonce.toUpperCase() + "\"}"))
                .isEmpty();
        assertThat(sentinel.exitCode("{\"__exit\":0,\"__nonce\":\"" + nonce + "\",\"x\":1}"))
                .isEmpty();
        assertThat(sentinel.exitCode("{\"__exit\":99999999999,\"__nonce\":\"" + nonce + "\"}"))
                .isEmpty();
    }
}
