package dev.agentbox.platform.body;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * What a request body says when a member's JSON value cannot be held by its record component (a
 * number where a string belongs, {@code 1.5} or {@code 2^64} for a {@code Long}, a list where an
 * object belongs). Without it {@link JsonShape} says what the Java type needs ({@code must be a
 * string}, {@code must be an integer}, {@code is out of range}).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.RECORD_COMPONENT)
public @interface TypeMismatch {

    /** For the member itself. */
    String value();

    /** For an element of a list or a value of a map; empty means the element type's default. */
    String elements() default "";
}
