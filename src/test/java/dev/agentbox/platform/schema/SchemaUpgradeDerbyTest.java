package dev.agentbox.platform.schema;

import dev.agentbox.platform.TestDatabase;

class SchemaUpgradeDerbyTest extends SchemaUpgradeContract {

    @Override
    String emptyDatabase() {
        return TestDatabase.freshUrl(TestDatabase.Kind.DERBY);
    }
}
