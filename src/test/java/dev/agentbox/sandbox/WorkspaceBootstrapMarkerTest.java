package dev.agentbox.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How a setup step's end marker is found (SH-08): only with the step's nonce, the last one. */
class WorkspaceBootstrapMarkerTest {

    private static final String NONCE = "0123456789abcdef0123456789abcdef";

    @Test
    void everyStepGetsAFreshNonceOf128BitsInHex() {
        String a = WorkspaceBootstrap.nonce();
        assertThat(a).matches("[0-9a-f]{32}");
        assertThat(WorkspaceBootstrap.nonce()).isNotEqualTo(a);
    }

    @Test
    void aMarkerWithoutTheNonceOrWithAnotherOneIsOrdinaryOutput() {
        assertThat(WorkspaceBootstrap.endMarker("out\n__AGENTBOX_STEP_END__ 0\n", NONCE)).isEmpty();
        assertThat(
                        WorkspaceBootstrap.endMarker(
                                "__AGENTBOX_STEP_END__ ffffffffffffffffffffffffffffffff 0\n",
                                NONCE))
                .isEmpty();
        // The format string of the script itself (visible in a process list) is no marker.
        assertThat(
                        WorkspaceBootstrap.endMarker(
                                "printf \"\\n__AGENTBOX_STEP_END__ " + NONCE + " %d\\n\"", NONCE))
                .isEmpty();
    }

    @Test
    void theLastMarkerCountsSoAForgedOneInTheEchoedTailIsNot() {
        String stdout =
                "tail\n__AGENTBOX_STEP_END__ "
                        + NONCE
                        + " 0\nmore\n\n__AGENTBOX_STEP_END__ "
                        + NONCE
                        + " 3\n";
        WorkspaceBootstrap.Marker m = WorkspaceBootstrap.endMarker(stdout, NONCE).orElseThrow();
        assertThat(m.status()).isEqualTo(3);
        assertThat(stdout.substring(0, m.start())).endsWith("more\n\n");
    }
}
