package dev.agentbox.platform.body;

import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;

/** Checks {@link Printable}. */
public final class PrintableValidator implements ConstraintValidator<Printable, String> {

    private boolean withIndex = true;

    @Override
    public void initialize(Printable constraint) {
        withIndex = constraint.withIndex();
    }

    @Override
    public boolean isValid(String value, ConstraintValidatorContext context) {
        int at = value == null ? -1 : firstUnprintable(value);
        if (at < 0) {
            return true;
        }
        if (!withIndex) {
            return false;
        }
        // Where: an id of 200 characters with one escape is otherwise hard to fix.
        context.disableDefaultConstraintViolation();
        context.buildConstraintViolationWithTemplate(
                        context.getDefaultConstraintMessageTemplate() + " at index " + at)
                .addConstraintViolation();
        return false;
    }

    /**
     * The index of the first char that is not printable, or -1. {@code codePoints()} yields a lone
     * surrogate as itself, so an unpaired one is refused like a control character.
     */
    public static int firstUnprintable(String value) {
        for (int i = 0; i < value.length(); ) {
            int cp = value.codePointAt(i);
            if (Character.isISOControl(cp)
                    || cp == '\u2028'
                    || cp == '\u2029'
                    || Character.getType(cp) == Character.SURROGATE) {
                return i;
            }
            i += Character.charCount(cp);
        }
        return -1;
    }
}
