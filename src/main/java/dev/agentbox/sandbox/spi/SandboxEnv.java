package dev.agentbox.sandbox.spi;

import java.util.Map;

/** The environment of later commands in this sandbox handle. */
public interface SandboxEnv {

    /** Sets variables for every later exec/spawn through this handle (merged, later wins). */
    void set(Map<String, String> vars);
}
