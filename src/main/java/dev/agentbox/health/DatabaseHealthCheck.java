package dev.agentbox.health;

import dev.agentbox.platform.lease.SessionLiveness;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import javax.sql.DataSource;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready only while a connection to the database can be opened and validated. The datasource's
 * connection timeout (5 s) bounds how long an unreachable database can hold this check up. Its
 * {@code liveness} says how other servers learn that this one died: {@code session} (its database
 * session ends with it: its runs are taken over within a second) or {@code lease} (its leases
 * expire: a lease TTL plus the quiet window).
 */
@Readiness
@ApplicationScoped
public class DatabaseHealthCheck implements HealthCheck {

    @Resource(lookup = "jdbc/agentbox")
    DataSource dataSource;

    @Inject SessionLiveness liveness;

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder b = HealthCheckResponse.named("database");
        try (Connection c = dataSource.getConnection()) {
            DatabaseMetaData meta = c.getMetaData();
            b.withData("product", meta.getDatabaseProductName());
            b.withData("liveness", liveness.mode().wireName());
            return b.status(c.isValid(3)).build();
        } catch (Exception e) {
            return b.down().withData("error", e.getClass().getSimpleName()).build();
        }
    }
}
