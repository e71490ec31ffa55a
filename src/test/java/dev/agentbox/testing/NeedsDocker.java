package dev.agentbox.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A test class that talks to the Docker engine (and the sandbox images). {@code mvn test} leaves it
 * out; {@code mvn verify} runs it before the integration tests.
 *
 * <p>Inherited: on an abstract contract it covers every subclass, so put it there only when every
 * backend of the contract needs the engine.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Tag("docker")
public @interface NeedsDocker {}
