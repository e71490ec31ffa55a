package dev.agentbox.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * An integration test that the PostgreSQL pass runs ({@code mvn verify -Ppostgres}). Every
 * integration test runs on embedded Derby; a second database adds something only where the subject
 * touches SQL: the stores and their queries, leases, claims, fencing and takeover across servers,
 * quotas counted in the database, the reaper's sweeps. Those carry this tag (and every {@code
 * *PostgresIT}, which runs in that pass only; {@code TestTiersTest} checks it). The rest — the
 * engine, HTTP, SSE framing, the harnesses, the browser — runs once, on Derby.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Tag("postgres-pass")
public @interface PostgresPass {}
