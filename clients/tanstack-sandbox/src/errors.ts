import { UnsupportedCapabilityError } from "@tanstack/ai-sandbox";
import { AgentboxProblem } from "agentbox-client";

/** The provider name every handle and error of this package carries. */
export const PROVIDER_NAME = "agentbox";

/**
 * What a failed agentbox call becomes for TanStack code:
 * - `422 unsupported-capability` → TanStack's {@link UnsupportedCapabilityError}, naming the
 *   capability the server named (so `capability` reads `ports`, `networkPolicy`, …);
 * - every other problem is rethrown as the {@link AgentboxProblem} it is, with its `code`,
 *   `status` and `field`, so callers can branch on `code`;
 * - anything else (a network failure) is rethrown untouched.
 */
export function translateError(error: unknown): unknown {
  if (error instanceof AgentboxProblem && error.code === "unsupported-capability") {
    const capability = typeof error.body.capability === "string" ? error.body.capability : "unknown";
    const translated = new UnsupportedCapabilityError(PROVIDER_NAME, capability, error.detail);
    (translated as { cause?: unknown }).cause = error;
    return translated;
  }
  return error;
}

/** Runs `call`, throwing its failure translated by {@link translateError}. */
export async function translated<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw translateError(error);
  }
}

/** True when `error` says the thing asked for does not exist (for this tenant). */
export function isNotFound(error: unknown): boolean {
  return error instanceof AgentboxProblem && error.code === "not-found";
}

/** Fails with {@link UnsupportedCapabilityError} unless the capability is `true`. */
export function requireCapability(has: boolean, capability: string, hint?: string): void {
  if (!has) throw new UnsupportedCapabilityError(PROVIDER_NAME, capability, hint);
}

/**
 * A command run for TanStack's exec-backed git failed. Plain `exec` never throws on a non-zero
 * exit (the exit code is data), but a git operation that did not happen must not look as if it
 * did: a clone, add or commit that fails rejects with this.
 */
export class SandboxCommandError extends Error {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;

  constructor(exitCode: number, stdout: string, stderr: string) {
    const tail = (stderr.trim() || stdout.trim()).slice(-1500);
    super(`command failed with exit ${exitCode}${tail ? `: ${tail}` : ""}`);
    this.name = "SandboxCommandError";
    this.exitCode = exitCode;
    this.stdout = stdout;
    this.stderr = stderr;
  }
}

const SIGNAL_NUMBERS: Record<number, string> = { 1: "HUP", 2: "INT", 3: "QUIT", 9: "KILL", 10: "USR1", 12: "USR2", 15: "TERM" };

/**
 * The name agentbox takes for a Node signal: `SIGTERM` → `TERM`, `15` → `TERM`. A signal
 * agentbox does not send (`SIGSTOP`, `19`) is passed on as its name and refused by the server
 * with `400 invalid-request` (field `signal`), never silently swapped for another.
 */
export function signalName(signal: string | number): string {
  if (typeof signal === "number") return SIGNAL_NUMBERS[signal] ?? String(signal);
  return signal.toUpperCase().replace(/^SIG/, "");
}
