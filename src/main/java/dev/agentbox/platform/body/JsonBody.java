package dev.agentbox.platform.body;

import jakarta.json.JsonValue;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validation;
import jakarta.validation.Validator;
import java.util.Set;

/**
 * Reads a request body into its record: {@link JsonShape} first (unknown members, JSON types,
 * integer ranges — what JSON-B would silently accept), then JSON-B binds, then Bean Validation
 * checks the record's constraints, and the first violation becomes the wire's {@code 400
 * invalid-request} ({@link Violations}).
 *
 * <p>Invariant: a record returned by {@link #read} satisfies every constraint declared on it; the
 * record's own constructor must therefore accept what only validation refuses (it runs first).
 */
public final class JsonBody {

    private JsonBody() {}

    /** {@code body} as a valid {@code type}, or a {@code ProblemException} naming the field. */
    public static <T extends Record> T read(JsonValue body, Class<T> type) {
        JsonShape.check(body, type);
        T value = Holder.JSONB.fromJson(body.toString(), type);
        validate(value);
        return value;
    }

    /** Checks an already made record (one built in code, or after defaults were applied). */
    public static <T> T validate(T value) {
        Set<ConstraintViolation<T>> violations = Holder.VALIDATOR.validate(value);
        if (!violations.isEmpty()) {
            throw Violations.problem(violations);
        }
        return value;
    }

    /** Made on first use: the JSON-B and Bean Validation providers are the server's. */
    static final class Holder {
        static final Jsonb JSONB = JsonbBuilder.create();
        static final Validator VALIDATOR = Validation.buildDefaultValidatorFactory().getValidator();
    }
}
