package dev.agentbox.platform.body;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A string of printable characters, as ids must be: no control characters and no line or paragraph
 * separators (CR, LF, U+2028 and U+2029 forge log lines), no unpaired surrogates (they cannot be
 * stored as UTF-8). {@code null} is valid.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.TYPE_USE, ElementType.PARAMETER})
@Constraint(validatedBy = PrintableValidator.class)
public @interface Printable {

    String message() default "must be printable (no control characters)";

    /** Whether the message ends with where the first such character is. */
    boolean withIndex() default true;

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};
}
