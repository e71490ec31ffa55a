package dev.agentbox.platform.schema;

import dev.agentbox.platform.TestDatabase;
import dev.agentbox.testing.NeedsPostgres;

@NeedsPostgres
class SchemaUpgradePostgresTest extends SchemaUpgradeContract {

    @Override
    String emptyDatabase() {
        String url = TestDatabase.freshUrl(TestDatabase.Kind.POSTGRESQL);
        TestDatabase.dropAllTables(url);
        return url;
    }
}
