import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { AgentboxClient, AgentboxProblem } from "../../dist/index.js";
import { clientA, clientB, problemOf, removeSandbox, serverEnv, unique } from "../helpers/server.mjs";

const a = clientA();
const b = clientB();
let key;

before(async () => {
  key = (await a.sandboxes.ensure({ lifecycle: { reuse: "none", keepAliveMs: 120_000 } })).key;
});

after(async () => {
  await removeSandbox(a, key);
});

test("a 400 names the offending field", async () => {
  const misspelt = await problemOf(a.sandboxes.exec(key, { command: "true", timeoutMS: 5 }), 400, "invalid-request");
  assert.equal(misspelt.field, "timeoutMS");
  assert.equal(misspelt.type, "https://agentbox.dev/problems/invalid-request");
  const nested = await problemOf(a.sandboxes.ensure({ policy: { cpus: "two" } }), 400, "invalid-request");
  assert.equal(nested.field, "policy.cpus");
  const limit = await problemOf(a.sandboxes.listPage({ limit: 0 }), 400, "invalid-request");
  assert.equal(limit.field, "limit");
});

test("an unknown sandbox is 404 not-found", async () => {
  const missing = await problemOf(a.sandboxes.get(unique("no-such-sandbox")), 404, "not-found");
  assert.equal(missing.body.status, 404);
  assert.equal(typeof missing.title, "string");
});

test("a wrong token is 401 unauthorized", async () => {
  const stranger = new AgentboxClient({ baseUrl: serverEnv().url, token: "not-a-token" });
  await problemOf(stranger.providers(), 401, "unauthorized");
  const anonymous = new AgentboxClient({ baseUrl: serverEnv().url });
  await problemOf(anonymous.sandboxes.get(key), 401, "unauthorized");
});

test("another tenant's sandbox is 404 to tenant b, as if it did not exist", async () => {
  await problemOf(b.sandboxes.get(key), 404, "not-found");
  await problemOf(b.sandboxes.exec(key, { command: "true" }), 404, "not-found");
  await problemOf(b.sandboxes.files.read(key, "x"), 404, "not-found");
  await problemOf(b.sandboxes.delete(key), 404, "not-found");
  for await (const sandbox of b.sandboxes.list()) assert.notEqual(sandbox.key, key);
  assert.equal((await a.sandboxes.get(key)).key, key, "tenant a still has it");
});

test("problems are AgentboxProblem errors with a readable message", async () => {
  const error = await a.runs.get(unique("r-none")).catch((e) => e);
  assert.ok(error instanceof AgentboxProblem);
  assert.ok(error instanceof Error);
  assert.match(error.message, /^404 not-found: /);
});
