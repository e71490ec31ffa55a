package dev.agentbox.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A test class that uses the PostgreSQL test database ({@code agentbox.test.pg.url}). {@code mvn
 * test} leaves it out; {@code mvn verify} runs it before the integration tests. Embedded Derby
 * needs no tag: it runs in the test JVM.
 *
 * <p>Inherited: on an abstract contract it covers every subclass, so put it on the PostgreSQL
 * subclass, never on a contract that also has Derby or in-memory backends.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Tag("postgres")
public @interface NeedsPostgres {}
