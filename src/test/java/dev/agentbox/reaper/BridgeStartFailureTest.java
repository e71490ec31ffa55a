package dev.agentbox.reaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.reaper.ReaperFixture.Box;
import dev.agentbox.run.BridgeStarter;
import dev.agentbox.run.RunContext;
import dev.agentbox.run.RunDriver;
import dev.agentbox.run.TakeoverCause;
import dev.agentbox.run.harness.AgentCommands;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.journal.AgentInvocation;
import dev.agentbox.run.store.NewRun;
import dev.agentbox.run.store.RunError;
import dev.agentbox.run.store.RunRecordView;
import jakarta.json.Json;
import jakarta.json.JsonValue;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A run whose tool bridge does not start ends {@code failed} with {@code tool-bridge-failed} rather
 * than letting its agent run without its tools: a first driver never starts the agent, a successor
 * stops the running one (its sandbox is destroyed). AP-09; real Docker sandboxes, Derby.
 */
class BridgeStartFailureTest extends ReaperDatabaseTest {

    private static final String SECRET_TEXT = "mailbox unreadable: /internal/path";

    /** The fixture's context, with a bridge that always throws. */
    private RunContext brokenBridges() {
        BridgeStarter throwing =
                (run, handle, calls, gate) -> {
                    throw new IllegalStateException(SECRET_TEXT);
                };
        return new RunContext(
                f.runs,
                f.claims,
                f.log,
                f.ctx.hub(),
                f.sandboxes,
                f.ctx.launcher(),
                f.ctx.readers(),
                f.clock,
                f.ctx.nodeId(),
                f.leases,
                f.ctx.takeover(),
                cause -> {},
                (decision, n) -> {},
                ref -> {},
                throwing);
    }

    /** A run with a tool bridge (as {@code RunBridge} stores one), bound to {@code box}. */
    private RunRecordView bridgedRun(Box box, Harness harness, String command) {
        String runId = "bridge-" + UUID.randomUUID();
        return f.runs.create(
                        new NewRun(
                                f.tenant,
                                runId,
                                "thread-" + runId,
                                harness,
                                f.clock.instant(),
                                true,
                                true,
                                false,
                                Optional.of(command),
                                Optional.empty(),
                                Optional.of(box.key()),
                                NewRun.randomNonce(),
                                Optional.empty(),
                                false,
                                JsonValue.EMPTY_JSON_ARRAY,
                                Optional.of(
                                        Json.createObjectBuilder()
                                                .add("tokenSha256", "00".repeat(32))
                                                .add("tools", Json.createArrayBuilder())
                                                .build())))
                .orElseThrow();
    }

    private void assertFailedAsBridge(RunRecordView run) {
        RunRecordView after = f.fresh(run);
        assertThat(after.status().wireName()).isEqualTo("failed");
        RunError error = after.error().orElseThrow();
        assertThat(error.code()).contains("tool-bridge-failed");
        assertThat(error.message())
                .startsWith("The run's tool bridge did not start")
                .doesNotContain(SECRET_TEXT);
        assertThat(f.chunkTypes(run)).last().isEqualTo("RUN_ERROR");
        assertThat(f.chunkJson(run))
                .last()
                .satisfies(c -> assertThat(c).contains("\"code\":\"tool-bridge-failed\""));
    }

    @Test
    void aFirstDriverWhoseBridgeDoesNotStartFailsTheRunWithoutStartingTheAgent() {
        Box box = f.sandbox();
        // A Claude Code run (the harness that gets a bridge); the busybox sandbox has no claude,
        // which is fine: the agent must never start.
        String claude = AgentCommands.CLAUDE_CODE + " --permission-mode bypassPermissions";
        RunRecordView run = bridgedRun(box, Harness.CLAUDE_CODE, claude);

        new RunDriver(
                        brokenBridges(),
                        run,
                        Optional.empty(),
                        AgentInvocation.withPrompt(claude, "hi"),
                        "a-token")
                .execute();

        assertFailedAsBridge(run);
        assertThat(f.ctx.launcher().exists(box.handle(), run.runId()))
                .as("the agent's journal: never started")
                .isFalse();
        assertThat(f.containerExists(box.handle().id())).as("nothing to stop").isTrue();
    }

    @Test
    void aSuccessorWhoseBridgeDoesNotStartStopsTheRunningAgentAndFailsTheRun() {
        Box box = f.sandbox();
        RunRecordView run = bridgedRun(box, Harness.COMMAND, "sleep 300");
        f.ctx.launcher().start(box.handle(), run.journal(), "echo '{\"delta\":\"hi\"}'; sleep 300");

        RunDriver.successor(brokenBridges(), run, TakeoverCause.LEASE_EXPIRED).execute();

        assertFailedAsBridge(run);
        assertThat(f.containerExists(box.handle().id()))
                .as("the sandbox, and with it the agent, is gone")
                .isFalse();
    }
}
