import { after, test } from "node:test";
import assert from "node:assert/strict";
import { clientA, drain, problemOf, removeAgent, removeRun, settledRun, unique } from "../helpers/server.mjs";

const ab = clientA();
const agentId = unique("a-threads");
const runs = [];

after(async () => {
  for (const runId of runs) await removeRun(ab, runId);
  await removeAgent(ab, agentId);
});

test("an agent's threads list newest first, titled by their first prompt's first line", async () => {
  await ab.agents.put(agentId, { sandbox: { lifecycle: { keepAliveMs: 60_000 } }, command: "cat > /dev/null" });
  const older = unique("t-older");
  const newer = unique("t-newer");
  for (const [threadId, text] of [[older, "first line of the older\nsecond line"], [newer, "x".repeat(100)]]) {
    const runId = unique("r-threads");
    runs.push(runId);
    await drain(ab.agents.run(agentId, { threadId, runId, messages: [{ id: "u", role: "user", content: text }] }));
    await settledRun(ab, runId);
  }
  const threads = await ab.agents.threads(agentId);
  assert.deepEqual(threads.map((t) => t.threadId), [newer, older]);
  assert.equal(threads[1].title, "first line of the older");
  assert.ok(threads[0].title.length <= 80);
  assert.equal(threads[1].turns, 1);
  assert.equal(typeof threads[0].createdAt, "string");
  assert.equal(typeof threads[0].updatedAt, "string");
  assert.deepEqual((await ab.agents.threads(agentId, { limit: 1 })).map((t) => t.threadId), [newer]);
  await problemOf(ab.agents.threads(unique("a-missing")), 404, "agent-not-found");
});
