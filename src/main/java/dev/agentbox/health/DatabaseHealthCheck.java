package dev.agentbox.health;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import javax.sql.DataSource;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready only while a connection to the database can be opened and validated. The datasource's
 * connection timeout (5 s) bounds how long an unreachable database can hold this check up.
 */
@Readiness
@ApplicationScoped
public class DatabaseHealthCheck implements HealthCheck {

    @Resource(lookup = "jdbc/agentbox")
    DataSource dataSource;

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder b = HealthCheckResponse.named("database");
        try (Connection c = dataSource.getConnection()) {
            DatabaseMetaData meta = c.getMetaData();
            b.withData("product", meta.getDatabaseProductName());
            return b.status(c.isValid(3)).build();
        } catch (Exception e) {
            return b.down().withData("error", e.getClass().getSimpleName()).build();
        }
    }
}
