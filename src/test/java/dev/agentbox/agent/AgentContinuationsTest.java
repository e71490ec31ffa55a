package dev.agentbox.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.interrupt.store.Interrupt;
import dev.agentbox.interrupt.store.InterruptStatus;
import dev.agentbox.run.store.RunRef;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The AG-UI rules for the input after an interrupt, at a settable instant (AG-17, AG-15, AG-16).
 */
class AgentContinuationsTest {

    private static final Instant CREATED = Instant.parse("2030-01-01T00:00:00Z");
    private static final Instant EXPIRES = CREATED.plusSeconds(60);

    private static Interrupt interrupt(String reason, InterruptStatus status) {
        return new Interrupt(
                "i1",
                new RunRef("ref-1"),
                "tenant-a",
                "run-1",
                "s:1",
                reason,
                Optional.of("agentbox-tool-1"),
                "pick_color",
                JsonValue.EMPTY_JSON_OBJECT,
                CREATED,
                EXPIRES,
                status,
                Optional.empty(),
                Optional.empty());
    }

    @Test
    void aPendingInterruptLeftUnansweredIsRefused_AG17() {
        var v =
                AgentContinuations.verdict(
                        interrupt("client_tool_input", InterruptStatus.PENDING),
                        false,
                        CREATED.plusSeconds(1));

        assertThat(v.answer()).isFalse();
        assertThat(v.refusal()).get().extracting(r -> r.code()).isEqualTo("INTERRUPT_PENDING");
    }

    @Test
    void anAnswerAtOrAfterTheExpiryIsRefusedEvenBeforeTheReaperMarksIt_AG17() {
        var atExpiry =
                AgentContinuations.verdict(
                        interrupt("approval", InterruptStatus.PENDING), true, EXPIRES);
        var marked =
                AgentContinuations.verdict(
                        interrupt("approval", InterruptStatus.EXPIRED), true, CREATED);

        assertThat(atExpiry.refusal())
                .get()
                .extracting(r -> r.code())
                .isEqualTo("INTERRUPT_EXPIRED");
        assertThat(marked.refusal()).get().extracting(r -> r.code()).isEqualTo("INTERRUPT_EXPIRED");
    }

    @Test
    void anAnswerInTimeIsGivenAndNoAnswerToASettledInterruptIsANewTurn() {
        assertThat(
                        AgentContinuations.verdict(
                                interrupt("approval", InterruptStatus.PENDING),
                                true,
                                EXPIRES.minusMillis(1)))
                .isEqualTo(new AgentContinuations.Verdict(true, Optional.empty()));
        assertThat(
                        AgentContinuations.verdict(
                                interrupt("approval", InterruptStatus.EXPIRED), false, EXPIRES))
                .isEqualTo(new AgentContinuations.Verdict(false, Optional.empty()));
        assertThat(
                        AgentContinuations.verdict(
                                interrupt("approval", InterruptStatus.RESOLVED), false, CREATED))
                .isEqualTo(new AgentContinuations.Verdict(false, Optional.empty()));
    }

    @Test
    void resumePayloadsBecomeTheAnswersTheWaitingCallsRead_AG15_AG16() {
        Interrupt tool = interrupt("client_tool_input", InterruptStatus.PENDING);
        Interrupt approval = interrupt("approval", InterruptStatus.PENDING);
        JsonObject teal = Json.createObjectBuilder().add("color", "teal").build();

        assertThat(payload(tool, teal))
                .isEqualTo(Json.createObjectBuilder().add("result", teal).build());
        assertThat(payload(tool, Json.createObjectBuilder().add("error", "no").build()))
                .isEqualTo(Json.createObjectBuilder().add("error", "no").build());
        assertThat(payload(approval, JsonValue.TRUE))
                .isEqualTo(Json.createObjectBuilder().add("approved", true).build());
        assertThat(
                        payload(
                                approval,
                                Json.createObjectBuilder()
                                        .add("approved", true)
                                        .add("editedArgs", teal)
                                        .build()))
                .isEqualTo(
                        Json.createObjectBuilder()
                                .add("approved", true)
                                .add("arguments", teal)
                                .build());
        assertThat(
                        AgentContinuations.mapped(
                                        approval,
                                        new RunAgentInput.Resume(
                                                "i1", InterruptStatus.CANCELLED, JsonValue.NULL))
                                .status())
                .isEqualTo(InterruptStatus.CANCELLED);
    }

    private static JsonObject payload(Interrupt x, JsonValue p) {
        return AgentContinuations.mapped(
                        x, new RunAgentInput.Resume("i1", InterruptStatus.RESOLVED, p))
                .payload()
                .orElseThrow();
    }
}
