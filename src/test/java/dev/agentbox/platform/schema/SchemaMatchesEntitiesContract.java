package dev.agentbox.platform.schema;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.platform.TestDatabase;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The versioned schema is exactly what EclipseLink makes of the entities: the same tables, column
 * types, sizes, nullability and defaults, primary keys, unique constraints and indexes. An entity
 * changed without a change set (or the other way round) fails here, on each database.
 */
abstract class SchemaMatchesEntitiesContract {

    /** A URL of an empty database of this kind. */
    abstract String emptyDatabase();

    @Test
    void theChangelogMakesTheTablesTheEntitiesWouldMake() throws Exception {
        List<String> byEntities;
        try (TestDatabase db = TestDatabase.createdByEntities(emptyDatabase())) {
            byEntities = SchemaShape.of(db.dataSource());
        }
        List<String> byChangelog;
        try (TestDatabase db = TestDatabase.openMigrated(emptyDatabase(), java.util.Map.of())) {
            byChangelog = SchemaShape.of(db.dataSource());
        }

        assertThat(byEntities).as("the entities make the twelve tables").hasSizeGreaterThan(120);
        assertThat(byChangelog).containsExactlyElementsOf(byEntities);
    }

    @Test
    void aSecondStartAppliesNothing() throws Exception {
        String url = emptyDatabase();
        try (TestDatabase db = TestDatabase.openMigrated(url, java.util.Map.of());
                var c = db.dataSource().getConnection()) {
            SchemaMigrator.Outcome again =
                    new SchemaMigrator(java.time.Duration.ofSeconds(30)).migrate(c);
            assertThat(again.applied()).isZero();
            assertThat(again.after()).isGreaterThanOrEqualTo(12);
        }
    }
}
