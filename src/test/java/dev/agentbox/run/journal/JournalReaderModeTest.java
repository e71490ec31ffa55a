package dev.agentbox.run.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentbox.run.journal.JournalReaderOptions.Mode;
import dev.agentbox.sandbox.spi.SandboxCapabilities;
import dev.agentbox.sandbox.spi.SandboxCapabilities.Capability;
import dev.agentbox.sandbox.spi.SandboxHandle;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;

/**
 * Which mode a reader picks from the provider's capabilities. Opening a reader starts nothing in
 * the sandbox, so a handle that answers only its capabilities is enough: any other call fails the
 * test.
 */
class JournalReaderModeTest {

    private static SandboxHandle handleWith(Capability... capabilities) {
        SandboxCapabilities caps = SandboxCapabilities.of(capabilities);
        return (SandboxHandle)
                Proxy.newProxyInstance(
                        SandboxHandle.class.getClassLoader(),
                        new Class<?>[] {SandboxHandle.class},
                        (proxy, method, args) ->
                                switch (method.getName()) {
                                    case "capabilities" -> caps;
                                    case "provider" -> "fake";
                                    case "journalDirectory" ->
                                            SandboxHandle.DEFAULT_JOURNAL_DIRECTORY;
                                    default ->
                                            throw new AssertionError(
                                                    "opening a reader must not call "
                                                            + method.getName());
                                });
    }

    private static JournalReader open(SandboxHandle handle, Mode mode) {
        return JournalReader.open(
                handle,
                JournalId.random("mode-run"),
                0,
                JournalReaderOptions.defaults().withMode(mode));
    }

    @Test
    void autoFollowsOnlyWhereProcessesRunInTheBackgroundAndCanBeKilled() {
        assertThat(
                        open(
                                        handleWith(
                                                Capability.BACKGROUND_PROCESSES,
                                                Capability.KILLABLE_PROCESSES),
                                        Mode.AUTO)
                                .mode())
                .isEqualTo(Mode.FOLLOW);
        assertThat(open(handleWith(Capability.KILLABLE_PROCESSES), Mode.AUTO).mode())
                .as("killable but no background processes")
                .isEqualTo(Mode.POLL);
        assertThat(open(handleWith(Capability.BACKGROUND_PROCESSES), Mode.AUTO).mode())
                .as("background processes that cannot be killed")
                .isEqualTo(Mode.POLL);
    }

    @Test
    void followModeIsRefusedWhenEitherCapabilityIsMissing() {
        assertThatThrownBy(() -> open(handleWith(Capability.KILLABLE_PROCESSES), Mode.FOLLOW))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("background and killable");
        assertThatThrownBy(() -> open(handleWith(Capability.BACKGROUND_PROCESSES), Mode.FOLLOW))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(open(handleWith(Capability.KILLABLE_PROCESSES), Mode.POLL).mode())
                .isEqualTo(Mode.POLL);
    }
}
