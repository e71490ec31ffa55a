/**
 * Durable interrupts: what a tool call of a run's agent must wait for before it runs (a person's
 * answer), stored so that any server can answer, expire or cancel the wait. The rows live in {@link
 * dev.agentbox.interrupt.store}; {@link dev.agentbox.interrupt.ApprovalGate} is the {@link
 * dev.agentbox.tool.ToolGate} that decides by a run's rules ({@link
 * dev.agentbox.tool.ApprovalRules}) and waits on them. Runs reach this package only through {@link
 * dev.agentbox.run.RunGates}, which {@link dev.agentbox.interrupt.Interrupts} implements.
 */
package dev.agentbox.interrupt;
