package dev.agentbox.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.SandboxSpecParser;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AgentTemplateWebhooksTest {

    private final SandboxSpecParser parser = new SandboxSpecParser(1_800_000, false);

    private AgentTemplate parse(String webhooks) {
        return AgentTemplate.parse(
                Json.createReader(
                                new StringReader(
                                        "{\"sandbox\":{},\"harness\":\"command\",\"command\":\"x\","
                                                + "\"webhooks\":"
                                                + webhooks
                                                + "}"))
                        .readObject(),
                parser);
    }

    private static String fieldOf(Runnable r) {
        try {
            r.run();
        } catch (ProblemException e) {
            assertThat(e.status()).isEqualTo(400);
            return (String) e.extensions().get("field");
        }
        throw new AssertionError("not refused");
    }

    @Test
    void webhooksAreKeptAndRoundTripThroughTheStoredForm() {
        AgentTemplate t =
                parse(
                        "[{\"url\":\"https://hooks.example/in\",\"events\":[\"run.failed\","
                                + "\"run.finished\"]}]");
        assertThat(t.webhooks()).hasSize(1);
        assertThat(t.webhooks().get(0).events())
                .containsExactlyInAnyOrder(WebhookEvent.RUN_FAILED, WebhookEvent.RUN_FINISHED);
        JsonObject stored = t.toJson();
        assertThat(stored.getJsonArray("webhooks").getJsonObject(0).toString())
                .isEqualTo(
                        "{\"url\":\"https://hooks.example/in\",\"events\":[\"run.finished\",\"run.failed\"]}");
        assertThat(AgentTemplate.fromJson(stored)).isEqualTo(t);
    }

    @Test
    void aDefinitionWithoutWebhooksStoresNone() {
        AgentTemplate t = parse("null");
        assertThat(t.webhooks()).isEmpty();
        assertThat(t.toJson().containsKey("webhooks")).isFalse();
    }

    @Test
    void badWebhooksAreRefusedNamingTheExactField() {
        assertThat(fieldOf(() -> parse("{}"))).isEqualTo("webhooks");
        assertThat(fieldOf(() -> parse("[3]"))).isEqualTo("webhooks[0]");
        assertThat(fieldOf(() -> parse("[{\"events\":[\"run.failed\"]}]")))
                .isEqualTo("webhooks[0].url");
        assertThat(fieldOf(() -> parse("[{\"url\":\"ftp://h/x\",\"events\":[\"run.failed\"]}]")))
                .isEqualTo("webhooks[0].url");
        assertThat(
                        fieldOf(
                                () ->
                                        parse(
                                                "[{\"url\":\"https://u:p@h/x\",\"events\":[\"run.failed\"]}]")))
                .isEqualTo("webhooks[0].url");
        assertThat(fieldOf(() -> parse("[{\"url\":\"https://h/x\",\"events\":[]}]")))
                .isEqualTo("webhooks[0].events");
        assertThat(
                        fieldOf(
                                () ->
                                        parse(
                                                "[{\"url\":\"https://h/x\",\"events\":[\"run.failed\"]},"
                                                        + "{\"url\":\"https://h/y\",\"events\":[\"run.failed\",\"run.started\"]}]")))
                .isEqualTo("webhooks[1].events[1]");
        assertThat(
                        fieldOf(
                                () ->
                                        parse(
                                                "[{\"url\":\"https://h/x\",\"events\":[\"run.failed\",\"run.failed\"]}]")))
                .isEqualTo("webhooks[0].events[1]");
        assertThat(
                        fieldOf(
                                () ->
                                        parse(
                                                "[{\"url\":\"https://h/x\",\"events\":[\"run.failed\"],\"secret\":\"s\"}]")))
                .isEqualTo("webhooks[0].secret");
    }

    @Test
    void aHostTheOperatorDoesNotAllowIsRefusedNamingItsUrl() {
        AgentTemplate t =
                parse(
                        "[{\"url\":\"https://hooks.example/a\",\"events\":[\"run.failed\"]},"
                                + "{\"url\":\"http://169.254.169.254/latest\",\"events\":[\"run.failed\"]}]");
        Webhook.requireAllowed(t.webhooks(), Set.of("hooks.example", "169.254.169.254"));
        assertThat(fieldOf(() -> Webhook.requireAllowed(t.webhooks(), Set.of("hooks.example"))))
                .isEqualTo("webhooks[1].url");
        try {
            Webhook.requireAllowed(t.webhooks(), Set.of());
        } catch (ProblemException e) {
            assertThat(e.getMessage())
                    .contains("hooks.example", "agentbox.tools.http.allowed-hosts");
        }
    }
}
