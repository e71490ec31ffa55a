package dev.agentbox.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A test that needs no service yet takes long: settle-and-watch waits on real processes, stress
 * runs, wall-clock bounds that a loaded machine misses. {@code mvn test} leaves it out, so that it
 * stays at about a minute; {@code mvn verify} runs it before the integration tests.
 *
 * <p>On a class, or on one test method when the rest of the class is quick; on a contract's method
 * it covers that test in every subclass.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Tag("slow")
public @interface Slow {}
