package dev.agentbox.platform.body;

import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;

/** Checks {@link NoNul}. */
public final class NoNulValidator implements ConstraintValidator<NoNul, String> {

    @Override
    public boolean isValid(String value, ConstraintValidatorContext context) {
        return value == null || value.indexOf('\0') < 0;
    }
}
