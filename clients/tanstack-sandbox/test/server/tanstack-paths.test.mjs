// TanStack's own code paths driven with the agentbox provider against a real server:
// defineSandbox + withSandbox (through chat()), bootstrapWorkspace, createExecBackedGit and
// watchWorkspace. Every effect is checked through a separate client, not through the provider.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { chat } from "@tanstack/ai";
import {
  bootstrapWorkspace,
  createSecrets,
  createExecBackedGit,
  defineSandbox,
  defineWorkspace,
  fileSkill,
  InMemorySandboxStore,
  watchWorkspace,
  withSandbox,
} from "@tanstack/ai-sandbox";
import { Sandboxes, eventually, providerFor, unique, witness } from "../helpers/server.mjs";
import { scriptedSandboxAdapter } from "../helpers/scripted-adapter.mjs";

const made = new Sandboxes();
after(() => made.cleanup());

async function catInSandbox(key, path) {
  const result = await witness().sandboxes.exec(key, { command: `cat ${path}` });
  assert.equal(result.exitCode, 0, result.stderr);
  return result.stdout;
}

describe("withSandbox over chat()", () => {
  test("a run gets a bootstrapped agentbox sandbox, sees its file events, and the sandbox is destroyed when the run completes", async () => {
    const provider = await providerFor();
    const fileEvents = [];
    const definition = defineSandbox({
      id: "with-sandbox",
      provider,
      workspace: defineWorkspace({
        source: { type: "none" },
        instructions: "Answer briefly.",
        setup: ["mkdir -p src", "cd src && echo hello > greeting.txt"],
      }),
      lifecycle: { destroyOnComplete: true, snapshot: "none" },
      hooks: { onFile: (event) => fileEvents.push(event) },
    });

    let key;
    const stream = chat({
      adapter: scriptedSandboxAdapter(async (handle) => {
        key = made.track(handle.id);
        assert.equal(handle.provider, "agentbox");
        // what bootstrap wrote, seen by another client
        assert.equal(await catInSandbox(key, "src/greeting.txt"), "hello\n");
        assert.equal(await catInSandbox(key, "AGENTS.md"), "Answer briefly.");
        // the run's own change reaches the sandbox hooks through watchWorkspace
        await handle.process.exec("echo made > /workspace/made-by-run.txt");
        const seen = await eventually(() => fileEvents.find((e) => e.path === "/workspace/made-by-run.txt"));
        assert.ok(seen, `no file event for the run's file; saw ${JSON.stringify(fileEvents.map((e) => e.path))}`);
        assert.equal(seen.type, "create");
        return (await handle.process.exec("cat src/greeting.txt")).stdout.trim();
      }),
      messages: [{ role: "user", content: "what does the greeting say?" }],
      middleware: [withSandbox(definition)],
      threadId: unique("thread"),
    });

    let text = "";
    for await (const chunk of stream) if (chunk.type === "TEXT_MESSAGE_CONTENT") text += chunk.delta;
    assert.equal(text, "hello");
    assert.ok(key, "the adapter ran");
    await assert.rejects(witness().sandboxes.get(key), (error) => error.code === "not-found");
  });
});

describe("defineSandbox", () => {
  test("ensure resumes one sandbox per thread, and a fresh store (another process) finds the same agentbox sandbox", async () => {
    const provider = await providerFor();
    const workspace = defineWorkspace({ source: { type: "none" }, setup: ["echo first > boot.txt"] });
    const definition = defineSandbox({ id: "per-thread", provider, workspace, lifecycle: { snapshot: "none" } });
    const threadId = unique("thread");
    const store = new InMemorySandboxStore();

    const first = await definition.ensure({ threadId, runId: "r1", store });
    made.track(first.id);
    await first.process.exec("echo kept > kept.txt");
    const second = await definition.ensure({ threadId, runId: "r2", store });
    assert.equal(second.id, first.id);
    assert.equal(await catInSandbox(second.id, "kept.txt"), "kept\n");

    // no record in this store: defineSandbox creates, and agentbox ensures the same key
    const elsewhere = await definition.ensure({ threadId, runId: "r3", store: new InMemorySandboxStore() });
    assert.equal(elsewhere.id, first.id);
    assert.equal(await catInSandbox(first.id, "kept.txt"), "kept\n");

    const other = await definition.ensure({ threadId: unique("thread"), runId: "r4", store });
    made.track(other.id);
    assert.notEqual(other.id, first.id);

    await definition.destroy({ threadId, runId: "r5", store });
    await assert.rejects(witness().sandboxes.get(first.id), (error) => error.code === "not-found");
    assert.equal(await store.get(definition.key({ threadId, runId: "r5" })), null);
  });

  test("a failing setup step fails ensure and leaves no sandbox behind", async () => {
    const provider = await providerFor();
    const definition = defineSandbox({
      id: "failing-setup",
      provider,
      workspace: defineWorkspace({ source: { type: "none" }, setup: ["echo before", "exit 7"] }),
      lifecycle: { snapshot: "none" },
    });
    const threadId = unique("thread");
    await assert.rejects(definition.ensure({ threadId, runId: "r1" }), /setup step failed: exit 7 \(exit 7\)/);
    const agentboxThread = definition.key({ threadId, runId: "r1" });
    for await (const sandbox of witness().sandboxes.list()) {
      assert.notEqual(sandbox.threadId, agentboxThread, `sandbox ${sandbox.key} was left behind`);
    }
  });
});

describe("bootstrapWorkspace", () => {
  test("lands skills, instructions and setup in the agentbox sandbox, with cd carried across serial steps and parallel steps starting from it", async () => {
    const provider = await providerFor();
    const handle = await provider.create({});
    made.track(handle.id);
    const result = await bootstrapWorkspace(
      handle,
      defineWorkspace({
        source: { type: "none" },
        instructions: "Run the tests before you answer.",
        scripts: { test: "sh check.sh" },
        skills: [fileSkill({ path: "notes/skill.md", content: "# a skill" })],
        setup: (steps) => {
          steps.serial("mkdir -p app && cd app");
          steps.parallel(["echo hi > a.txt", "pwd > b.txt"]);
          steps.serial("echo done > c.txt");
        },
      }),
    );
    assert.deepEqual(result.ranSetup, ["mkdir -p app && cd app", "echo hi > a.txt", "pwd > b.txt", "echo done > c.txt"]);
    assert.equal(await catInSandbox(handle.id, "app/a.txt"), "hi\n");
    assert.equal(await catInSandbox(handle.id, "app/b.txt"), "/workspace/app\n");
    assert.equal(await catInSandbox(handle.id, "app/c.txt"), "done\n");
    assert.equal(await catInSandbox(handle.id, "notes/skill.md"), "# a skill");
    const agents = await catInSandbox(handle.id, "AGENTS.md");
    assert.match(agents, /^Run the tests before you answer\./);
    assert.match(agents, /- test → sh check.sh/);
    const link = await witness().sandboxes.exec(handle.id, { command: "readlink CLAUDE.md GEMINI.md" });
    assert.equal(link.stdout, "AGENTS.md\nAGENTS.md\n");
  });

  test("workspace secrets reach the commands through env.set without being stored with the sandbox", async () => {
    const provider = await providerFor();
    const handle = await provider.create({});
    made.track(handle.id);
    await bootstrapWorkspace(handle, defineWorkspace({ source: { type: "none" }, secrets: createSecrets({ API_TOKEN: "s3cret-value" }) }));
    const seen = await witness().sandboxes.exec(handle.id, { command: 'printf %s "$API_TOKEN"' });
    assert.equal(seen.stdout, "s3cret-value");
    const record = await witness().sandboxes.get(handle.id);
    assert.ok(!JSON.stringify(record).includes("s3cret-value"));
    assert.deepEqual(record.secrets?.plain, ["API_TOKEN"]);
  });
});

describe("createExecBackedGit", () => {
  test("add, commit, status and branch act on a repository in the sandbox, as git there reports", async () => {
    const provider = await providerFor();
    const handle = await provider.create({});
    made.track(handle.id);
    const dir = "/workspace/repo";
    const init = await handle.process.exec(
      "git init -q -b main repo && cd repo && git config user.email t@example.com && git config user.name Tester && echo one > a.txt",
    );
    assert.equal(init.exitCode, 0, init.stderr);

    const git = createExecBackedGit(handle.process, dir);
    assert.equal(await git.status(), "?? a.txt\n");
    await git.add(["a.txt"]);
    await git.commit("first commit");
    assert.equal(await git.status(), "");
    assert.equal(await git.branch(), "main");

    await handle.fs.write(`${dir}/a.txt`, "two\n");
    assert.equal(await git.status(), " M a.txt\n");
    const diff = await handle.process.exec("git diff", { cwd: dir });
    assert.match(diff.stdout, /-one\n\+two/);

    // agentbox's own view of the same repository
    const status = await witness().sandboxes.git.status(handle.id, { dir: "repo" });
    assert.equal(status.branch, "main");
    assert.equal(status.clean, false);
    assert.deepEqual(status.entries.map((e) => [e.path, e.status]), [["a.txt", "modified"]]);
    const log = await witness().sandboxes.exec(handle.id, { command: "git -C repo log --format=%s" });
    assert.equal(log.stdout, "first commit\n");
  });

  test("the handle's git rejects a commit that did not happen, and pull without a remote is agentbox's git-failed", async () => {
    const provider = await providerFor();
    const handle = await provider.create({});
    made.track(handle.id);
    await handle.process.exec("git init -q -b main && git config user.email t@example.com && git config user.name T");
    await assert.rejects(handle.git.commit("nothing to commit"), (error) => error.name === "SandboxCommandError" && error.exitCode === 1);
    await assert.rejects(handle.git.pull(), (error) => error.code === "git-failed" && error.body.reason === "no-remote");
  });
});

describe("watchWorkspace", () => {
  for (const [path, strip] of [
    ["the native path (agentbox's file events)", false],
    ["the exec-poll path", true],
  ]) {
    test(`a file written by another client is seen as create, change and delete on ${path}`, async () => {
      const provider = await providerFor();
      const created = await provider.create({});
      made.track(created.id);
      const handle = strip ? { ...created, fs: { ...created.fs, watch: undefined } } : created;
      const events = [];
      const watcher = await watchWorkspace(handle, { onEvent: (event) => events.push(event), intervalMs: 200 });
      try {
        const ab = witness();
        const seen = (type) => eventually(() => events.find((e) => e.type === type && e.path === "/workspace/watched.txt"));
        await ab.sandboxes.exec(created.id, { command: "echo one > watched.txt" });
        assert.ok(await seen("create"), `no create; saw ${JSON.stringify(events)}`);
        await new Promise((resolve) => setTimeout(resolve, 1100)); // a later mtime for the poll path
        await ab.sandboxes.exec(created.id, { command: "echo two-two >> watched.txt" });
        assert.ok(await seen("change"), `no change; saw ${JSON.stringify(events)}`);
        await ab.sandboxes.exec(created.id, { command: "rm watched.txt" });
        assert.ok(await seen("delete"), `no delete; saw ${JSON.stringify(events)}`);
      } finally {
        await watcher.stop();
      }
    });
  }
});
