package dev.agentbox.webhook.store;

import dev.agentbox.platform.TestDatabase;
import dev.agentbox.testing.NeedsPostgres;
import org.junit.jupiter.api.BeforeAll;

@NeedsPostgres
class JpaPostgresWebhookOutboxTest extends WebhookOutboxContract {

    @BeforeAll
    static void openPostgres() {
        open(TestDatabase.Kind.POSTGRESQL);
    }
}
