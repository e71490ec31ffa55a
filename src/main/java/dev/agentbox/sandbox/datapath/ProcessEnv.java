package dev.agentbox.sandbox.datapath;

import dev.agentbox.sandbox.spi.ProcessOptions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A channel sandbox's environment overlay: what {@code set} gave it, under each process's own
 * variables (a process's value wins), as the {@code NAME=value} list a channel request carries.
 */
public final class ProcessEnv {

    private final Map<String, String> vars = new ConcurrentHashMap<>();

    /** Adds or replaces {@code more} in the overlay. */
    public void set(Map<String, String> more) {
        vars.putAll(more);
    }

    /** The overlay with {@code options}' variables over it; empty when both are. */
    public List<String> forProcess(ProcessOptions options) {
        if (vars.isEmpty() && options.env().isEmpty()) {
            return List.of();
        }
        Map<String, String> merged = new LinkedHashMap<>(vars);
        merged.putAll(options.env());
        return merged.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList();
    }
}
