package dev.agentbox.platform.body;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A string that is not blank as {@link String#isBlank} says: Unicode white space alone (line and
 * paragraph separators included) is blank, a control character is not. {@code @NotBlank} differs
 * both ways (it trims every char up to U+0020), so a body read by hand with {@code isBlank} keeps
 * its answers only with this one. {@code null} is valid.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.TYPE_USE, ElementType.PARAMETER})
@Constraint(validatedBy = NonBlankValidator.class)
public @interface NonBlank {

    String message() default "must not be blank";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};
}
