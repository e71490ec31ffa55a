package dev.agentbox.run;

/**
 * The secret a run's HTTP tool posts are signed with. Declared here, implemented above by the
 * agents ({@code dev.agentbox.agent.AgentToolSecrets}, a CDI bean), whose definitions hold the
 * secret: runs do not depend on agents.
 *
 * <p>Invariant: looked up each time a driver starts the run's bridge and never stored with the run,
 * so a server that takes the run over signs with the same secret.
 */
public interface ToolSecrets {

    /** The secret's bytes for run {@code runId} of {@code tenant}; empty: its posts go unsigned. */
    byte[] of(String tenant, String runId);
}
