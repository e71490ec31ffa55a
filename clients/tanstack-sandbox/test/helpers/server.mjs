// What every server test needs: the server from the environment (missing → the suite fails,
// never skips), names no other run uses, and a second client to check what the provider did.
import { randomBytes } from "node:crypto";
import { AgentboxClient } from "agentbox-client";
import { agentboxSandbox } from "../../dist/index.js";

export function serverEnv() {
  const url = process.env.AGENTBOX_URL;
  const token = process.env.AGENTBOX_TOKEN;
  const tokenB = process.env.AGENTBOX_TOKEN_B;
  const missing = ["AGENTBOX_URL", "AGENTBOX_TOKEN", "AGENTBOX_TOKEN_B"].filter((name) => !process.env[name]);
  if (missing.length > 0) throw new Error(`server tests need ${missing.join(", ")} (see README)`);
  return { url, token, tokenB };
}

/** A name unique to this run, so parallel and repeated runs never meet. */
export function unique(prefix) {
  return `${prefix}-${randomBytes(6).toString("hex")}`;
}

/** A provider for tenant A, its sandboxes ensured under `definitionId` (part of every key). */
export async function providerFor(options = {}) {
  const { url, token } = serverEnv();
  return agentboxSandbox({ baseUrl: url, token, definitionId: unique("tanstack-test"), ...options });
}

/** An independent client: what it sees is what agentbox really holds, not what the provider believes. */
export function witness(token = serverEnv().token) {
  return new AgentboxClient({ baseUrl: serverEnv().url, token });
}

/** Keys made by a test, deleted in `after` whatever happened. */
export class Sandboxes {
  keys = new Set();
  track(key) {
    this.keys.add(key);
    return key;
  }
  async cleanup() {
    const ab = witness();
    await Promise.all(
      [...this.keys].map((key) => ab.sandboxes.delete(key).catch((error) => (error.code === "not-found" ? undefined : Promise.reject(error)))),
    );
  }
}

/** Polls `probe` until it returns a truthy value or `ms` pass; returns the value (or undefined). */
export async function eventually(probe, ms = 10_000, every = 100) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}
