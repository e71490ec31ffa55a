package dev.agentbox.sandbox;

import dev.agentbox.platform.body.JsonMembers;
import dev.agentbox.platform.body.NonBlank;
import dev.agentbox.platform.body.TypeMismatch;
import jakarta.json.JsonArray;
import jakarta.json.JsonValue;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Pattern;

/**
 * An ensure body's {@code policy}, read by {@link JsonMembers} in this order. The server's
 * ceilings, whether {@code bridge} exists, {@code egress} (allowed only with network {@code
 * egress}, so read after it) and the ports are {@link PolicyReader}'s. Numbers are integers in
 * range, never wrapped: a JSON {@code 4294967302} must not become {@code 6}.
 */
public record PolicyBody(
        @NonBlank(message = EnsureBody.EMPTY)
                @Pattern(
                        regexp = "none|bridge|egress",
                        message = "must be \"none\", \"bridge\" or \"egress\"")
                String network,
        JsonValue egress,
        @Min(value = 6, message = "must be at least 6") Long memoryMb,
        @Min(value = 1, message = "must be at least 1") Long pids,
        @TypeMismatch(CPUS)
                @DecimalMin(value = "0.01", message = CPUS)
                @DecimalMax(value = "1.7976931348623157E308", message = CPUS)
                Double cpus,
        JsonArray ports) {

    /** Also said of an infinite count ({@code 1e400}), which the upper bound refuses. */
    static final String CPUS = "must be a number of at least 0.01";
}
