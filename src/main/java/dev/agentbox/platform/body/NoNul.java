package dev.agentbox.platform.body;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A string without NUL: no command line, path or environment variable can carry one, and a NUL cuts
 * an argv string short, so the shell would run less than was asked for. {@code null} is valid.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.TYPE_USE, ElementType.PARAMETER})
@Constraint(validatedBy = NoNulValidator.class)
public @interface NoNul {

    String message() default "must not contain NUL";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};
}
