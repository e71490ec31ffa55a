package dev.agentbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentbox.testing.PostgresPass;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Runs only in the PostgreSQL pass (see the postgres profile). The server's database stops taking
 * connections and its sessions are ended: readiness must turn DOWN (503) and come back UP once the
 * database takes connections again. The outage is the database's, not the role's: other tests
 * running at the same time under the same role, on another database, keep theirs.
 */
@PostgresPass
class DatabaseOutagePostgresIT {

    private static final String ADMIN_URL =
            "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";

    private final Api api = Api.itServer();
    private final String database = ItDatabase.name();

    @AfterEach
    void reopen() throws Exception {
        sql("ALTER DATABASE " + database + " WITH ALLOW_CONNECTIONS true");
    }

    @Test
    void readinessIsDownWhileTheDatabaseIsUnreachableAndRecovers() throws Exception {
        assertThat(ready().statusCode()).isEqualTo(200);

        sql("ALTER DATABASE " + database + " WITH ALLOW_CONNECTIONS false");
        sql(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"
                        + database
                        + "'");

        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofSeconds(1))
                .untilAsserted(
                        () -> {
                            HttpResponse<String> down = ready();
                            assertThat(down.statusCode()).isEqualTo(503);
                            assertThat(down.body())
                                    .contains("\"name\":\"database\",\"status\":\"DOWN\"");
                        });

        sql("ALTER DATABASE " + database + " WITH ALLOW_CONNECTIONS true");
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofSeconds(1))
                .untilAsserted(() -> assertThat(ready().statusCode()).isEqualTo(200));
    }

    private HttpResponse<String> ready() {
        return api.send(api.request("/health/ready").GET());
    }

    private static void sql(String statement) throws Exception {
        try (Connection c = DriverManager.getConnection(ADMIN_URL);
                Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }
}
