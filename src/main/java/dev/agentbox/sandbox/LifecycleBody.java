package dev.agentbox.sandbox;

import dev.agentbox.platform.body.JsonMembers;
import dev.agentbox.platform.body.NonBlank;
import jakarta.validation.constraints.Min;

/**
 * An ensure body's {@code lifecycle}, read by {@link JsonMembers}. The wire names of {@code reuse}
 * and {@code snapshot} (any case, {@code -} or {@code _}) and the keep-alive ceiling are {@link
 * SandboxSpecParser}'s.
 */
public record LifecycleBody(
        @NonBlank(message = EnsureBody.EMPTY) String reuse,
        @NonBlank(message = EnsureBody.EMPTY) String snapshot,
        @Min(value = 1000, message = "must be an integer of at least 1000") Long keepAliveMs) {}
