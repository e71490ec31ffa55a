// What every server test needs: the server from the environment (a test fails, never skips,
// without it), clients of tenant a and b, random names, and cleanup of what a test made.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { AgentboxClient, AgentboxProblem } from "../../dist/index.js";

/** AGENTBOX_URL, AGENTBOX_TOKEN and AGENTBOX_TOKEN_B, asserted present. */
export function serverEnv() {
  const url = process.env.AGENTBOX_URL;
  const token = process.env.AGENTBOX_TOKEN;
  const tokenB = process.env.AGENTBOX_TOKEN_B;
  assert.ok(url, "AGENTBOX_URL must name the server under test (e.g. http://localhost:9080)");
  assert.ok(token, "AGENTBOX_TOKEN must be tenant a's token");
  assert.ok(tokenB, "AGENTBOX_TOKEN_B must be tenant b's token");
  return { url: url.replace(/\/+$/, ""), token, tokenB };
}

/** A client of tenant a (or of the given token). */
export function clientA(options = {}) {
  const { url, token } = serverEnv();
  return new AgentboxClient({ baseUrl: url, token, ...options });
}

export function clientB() {
  const { url, tokenB } = serverEnv();
  return new AgentboxClient({ baseUrl: url, token: tokenB });
}

/** A name no other run of any suite uses: `<prefix>-<random>`. */
export function unique(prefix) {
  return `${prefix}-${randomBytes(6).toString("hex")}`;
}

/** Deletes a sandbox, quiet when it is already gone. */
export async function removeSandbox(client, key) {
  if (!key) return;
  try {
    await client.sandboxes.delete(key);
  } catch (error) {
    if (!(error instanceof AgentboxProblem && error.status === 404)) throw error;
  }
}

/** Cancels a run that may still be going and deletes its sandbox. */
export async function removeRun(client, runId) {
  let record;
  try {
    record = await client.runs.get(runId);
  } catch (error) {
    if (error instanceof AgentboxProblem && error.status === 404) return;
    throw error;
  }
  if (record.status === "running" || record.status === "interrupted") record = await client.runs.cancel(runId);
  await removeSandbox(client, record.sandboxKey);
}

/** Deletes an agent definition, quiet when it is already gone. */
export async function removeAgent(client, agentId) {
  try {
    await client.agents.delete(agentId);
  } catch (error) {
    if (!(error instanceof AgentboxProblem && error.status === 404)) throw error;
  }
}

/** Collects an async iterable. */
export async function drain(iterable) {
  const out = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** Asserts `promise` rejects with an AgentboxProblem of `status` and `code`; answers it. */
export async function problemOf(promise, status, code) {
  const error = await promise.then(
    () => assert.fail(`expected ${status} ${code}, got success`),
    (e) => e,
  );
  assert.ok(error instanceof AgentboxProblem, `expected an AgentboxProblem, got ${error}`);
  assert.equal(error.status, status, error.message);
  assert.equal(error.code, code, error.message);
  return error;
}

/**
 * The run's record once it reads terminal: the stream's terminal chunk can be seen a moment
 * before the record is updated, so a test reads the record until it is.
 */
export async function settledRun(client, runId, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (true) {
    const record = await client.runs.get(runId);
    if (["completed", "failed", "aborted"].includes(record.status) || Date.now() > deadline) return record;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
