package dev.agentbox.interrupt;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.interrupt.store.Interrupt;
import dev.agentbox.interrupt.store.InterruptStatus;
import dev.agentbox.run.store.RunRef;
import dev.agentbox.tool.ClientToolCalls.Answer;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the agent is handed for its client tool call, by how the interrupt was settled (AG-15). */
class ClientToolWaitTest {

    private static Answer settled(InterruptStatus status, JsonObject payload) {
        Instant t = Instant.parse("2030-01-01T00:00:00Z");
        return ClientToolWait.answer(
                new Interrupt(
                        "i",
                        new RunRef("ref"),
                        "tenant-a",
                        "run-1",
                        "s:1#client",
                        ClientToolWait.REASON,
                        Optional.of("agentbox-tool-1"),
                        "pick_color",
                        JsonValue.EMPTY_JSON_OBJECT,
                        t,
                        t.plusSeconds(60),
                        status,
                        Optional.ofNullable(payload),
                        Optional.of(t)));
    }

    @Test
    void aResultIsHandedAsTextAStringAsItIs() {
        assertThat(
                        settled(
                                InterruptStatus.RESOLVED,
                                Json.createObjectBuilder()
                                        .add("result", Json.createObjectBuilder().add("c", "teal"))
                                        .build()))
                .isEqualTo(new Answer("{\"c\":\"teal\"}", false));
        assertThat(
                        settled(
                                InterruptStatus.RESOLVED,
                                Json.createObjectBuilder().add("result", "navy").build()))
                .isEqualTo(new Answer("navy", false));
    }

    @Test
    void anErrorACancelAndAnExpiryAreErrorResults() {
        assertThat(
                        settled(
                                InterruptStatus.RESOLVED,
                                Json.createObjectBuilder().add("error", "no camera").build()))
                .isEqualTo(new Answer("no camera", true));
        assertThat(settled(InterruptStatus.CANCELLED, null).error()).isTrue();
        assertThat(settled(InterruptStatus.EXPIRED, null).error()).isTrue();
    }
}
