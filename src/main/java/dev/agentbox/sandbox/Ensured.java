package dev.agentbox.sandbox;

/** The result of an ensure. */
public record Ensured(Sandbox sandbox, EnsureOutcome outcome) {}
