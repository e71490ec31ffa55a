package dev.agentbox.webhook.store;

import dev.agentbox.platform.TestDatabase;
import org.junit.jupiter.api.BeforeAll;

class JpaDerbyWebhookOutboxTest extends WebhookOutboxContract {

    @BeforeAll
    static void openDerby() {
        open(TestDatabase.Kind.DERBY);
    }
}
