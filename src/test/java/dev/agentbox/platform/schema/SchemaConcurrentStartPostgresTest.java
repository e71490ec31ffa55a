package dev.agentbox.platform.schema;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.platform.TestDatabase;
import dev.agentbox.testing.NeedsPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Servers that start at once against one empty PostgreSQL database: one of them applies the schema,
 * the others wait for it and apply nothing, and none fails.
 */
@NeedsPostgres
class SchemaConcurrentStartPostgresTest {

    @Test
    void serversStartingAtOnceApplyTheSchemaOnceAndAllSucceed() throws Exception {
        String url = TestDatabase.freshUrl(TestDatabase.Kind.POSTGRESQL);
        TestDatabase.dropAllTables(url);
        int servers = 4;
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(servers);
        try {
            List<Future<SchemaMigrator.Outcome>> starts = new ArrayList<>();
            for (int i = 0; i < servers; i++) {
                starts.add(
                        pool.submit(
                                () -> {
                                    try (Connection c = DriverManager.getConnection(url)) {
                                        go.await();
                                        return new SchemaMigrator(Duration.ofMinutes(2)).migrate(c);
                                    }
                                }));
            }
            go.countDown();
            List<Integer> applied = new ArrayList<>();
            for (Future<SchemaMigrator.Outcome> start : starts) {
                applied.add(start.get(3, TimeUnit.MINUTES).applied());
            }
            // every change set for PostgreSQL: 001 has twelve, 002 adds the sandbox secret names
            assertThat(applied).containsOnly(0, 13).containsOnlyOnce(13);
        } finally {
            pool.shutdownNow();
        }
        try (TestDatabase db = TestDatabase.openMigrated(url, java.util.Map.of())) {
            assertThat(SchemaShape.of(db.dataSource())).hasSizeGreaterThan(120);
        }
    }
}
