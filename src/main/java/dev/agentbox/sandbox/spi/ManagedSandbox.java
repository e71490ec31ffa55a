package dev.agentbox.sandbox.spi;

import java.time.Instant;
import java.util.Map;

/** A sandbox found by listing a provider: its id, its labels and when it was created. */
public record ManagedSandbox(String id, Map<String, String> labels, Instant createdAt) {

    public ManagedSandbox {
        labels = Map.copyOf(labels);
    }
}
