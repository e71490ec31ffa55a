package dev.agentbox.health;

import dev.agentbox.platform.lease.SessionLiveness;
import dev.agentbox.platform.schema.SchemaMigration;
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
 * expire: a lease TTL plus the quiet window). Its {@code schema} is {@code applied} once this
 * server brought the database to its schema version, {@code external} when an operator does that,
 * and {@code pending} (DOWN) while that has not succeeded yet.
 */
@Readiness
@ApplicationScoped
public class DatabaseHealthCheck implements HealthCheck {

    @Resource(lookup = "jdbc/agentbox")
    DataSource dataSource;

    @Inject SessionLiveness liveness;

    @Inject SchemaMigration schema;

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder b = HealthCheckResponse.named("database");
        try (Connection c = dataSource.getConnection()) {
            DatabaseMetaData meta = c.getMetaData();
            b.withData("product", meta.getDatabaseProductName());
            b.withData("liveness", liveness.mode().wireName());
            SchemaMigration.State state = schema.state();
            b.withData("schema", state.wireName());
            if (schema.lastError() != null) {
                b.withData("schemaError", schema.lastError());
            }
            return b.status(c.isValid(3) && state != SchemaMigration.State.PENDING).build();
        } catch (Exception e) {
            return b.down().withData("error", e.getClass().getSimpleName()).build();
        }
    }
}
