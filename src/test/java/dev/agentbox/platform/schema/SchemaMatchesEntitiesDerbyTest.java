package dev.agentbox.platform.schema;

import dev.agentbox.platform.TestDatabase;

class SchemaMatchesEntitiesDerbyTest extends SchemaMatchesEntitiesContract {

    @Override
    String emptyDatabase() {
        return TestDatabase.freshUrl(TestDatabase.Kind.DERBY);
    }
}
