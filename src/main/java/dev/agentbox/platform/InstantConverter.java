package dev.agentbox.platform;

import jakarta.persistence.AttributeConverter;
import jakarta.persistence.Converter;
import java.sql.Timestamp;
import java.time.Instant;

// Hand-written: EclipseLink 4.0 has no Instant mapping; it stores a BLOB, which Derby cannot
// compare.
/** Stores {@link Instant} as a SQL timestamp the same way on Derby and PostgreSQL. */
@Converter(autoApply = true)
public class InstantConverter implements AttributeConverter<Instant, Timestamp> {

    @Override
    public Timestamp convertToDatabaseColumn(Instant value) {
        return value == null ? null : Timestamp.from(value);
    }

    @Override
    public Instant convertToEntityAttribute(Timestamp value) {
        return value == null ? null : value.toInstant();
    }
}
