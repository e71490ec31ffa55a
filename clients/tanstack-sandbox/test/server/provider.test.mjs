// The provider's own surface against a real server: what it declares, and each handle operation
// checked through a separate client.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { UnsupportedCapabilityError } from "@tanstack/ai-sandbox";
import { agentboxSandbox } from "../../dist/index.js";
import { Sandboxes, eventually, providerFor, serverEnv, witness } from "../helpers/server.mjs";

const made = new Sandboxes();
after(() => made.cleanup());

let provider;
let handle;
before(async () => {
  provider = await providerFor();
  handle = await provider.create({});
  made.track(handle.id);
});

async function collect(iterable) {
  let text = "";
  for await (const chunk of iterable) text += chunk;
  return text;
}

describe("the provider", () => {
  test("declares exactly the capabilities the server reports for its provider", async () => {
    const reported = (await witness().providers()).find((p) => p.name === provider.backend);
    assert.ok(reported);
    assert.deepEqual(provider.capabilities(), reported.capabilities);
    assert.equal(provider.name, "agentbox");
    assert.deepEqual(handle.capabilities, reported.capabilities);
  });

  test("a wrong token fails at construction with the server's problem code", async () => {
    await assert.rejects(agentboxSandbox({ baseUrl: serverEnv().url, token: "wrong-token" }), (error) => error.code === "unauthorized" && error.status === 401);
  });

  test("an agentbox provider the server does not have fails at construction", async () => {
    await assert.rejects(agentboxSandbox({ baseUrl: serverEnv().url, token: serverEnv().token, provider: "no-such" }), /no provider "no-such"/);
  });

  test("create with a TanStack id ensures the same agentbox sandbox every time", async () => {
    const id = `tanstack-id-${Date.now()}`;
    const first = await provider.create({ id });
    made.track(first.id);
    assert.equal(first.sandbox.outcome, "created");
    assert.equal(first.sandbox.threadId, id);
    const again = await provider.create({ id });
    assert.equal(again.id, first.id);
    assert.equal(again.sandbox.outcome, "resumed");
  });

  test("resume finds a live sandbox by id and answers null for a destroyed one and for another tenant's", async () => {
    const resumed = await provider.resume({ id: handle.id });
    assert.equal(resumed?.id, handle.id);

    const other = await agentboxSandbox({ baseUrl: serverEnv().url, token: serverEnv().tokenB });
    assert.equal(await other.resume({ id: handle.id }), null);

    const doomed = await provider.create({});
    made.track(doomed.id);
    await provider.destroy({ id: doomed.id });
    assert.equal(await provider.resume({ id: doomed.id }), null);
    await provider.destroy({ id: doomed.id }); // already gone: quiet
    await assert.rejects(witness().sandboxes.get(doomed.id), (error) => error.code === "not-found");
  });
});

describe("a handle", () => {
  test("exec returns output and a non-zero exit as data, in the workspace by default, with per-command env", async () => {
    const result = await handle.process.exec('pwd; echo "$GREETING" >&2; exit 3', { env: { GREETING: "hi" } });
    assert.deepEqual({ stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode }, { stdout: "/workspace\n", stderr: "hi\n", exitCode: 3 });
    const inSub = await handle.process.exec("mkdir -p sub && cd sub && pwd");
    assert.equal(inSub.stdout, "/workspace/sub\n");
    assert.equal((await handle.process.exec("pwd", { cwd: "sub" })).stdout, "/workspace/sub\n");
  });

  test("an aborted exec rejects and stops the command", async () => {
    const controller = new AbortController();
    const running = handle.process.exec("sleep 30; echo late > aborted.txt", { signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    await assert.rejects(running, (error) => error.name === "AbortError");
  });

  test("fs operations act on the sandbox's files", async () => {
    const fs = handle.fs;
    await fs.write("dir/a.txt", "alpha");
    await fs.write("/workspace/dir/b.bin", new Uint8Array([0, 1, 255]));
    assert.equal(await fs.read("dir/a.txt"), "alpha");
    assert.deepEqual([...(await fs.readBytes("dir/b.bin"))], [0, 1, 255]);
    assert.deepEqual(
      (await fs.list("dir")).map((e) => [e.name, e.type]).sort(),
      [["a.txt", "file"], ["b.bin", "file"]],
    );
    await fs.mkdir("dir/nested/deeper");
    await fs.rename("dir/a.txt", "dir/nested/a.txt");
    assert.equal(await fs.exists("dir/a.txt"), false);
    assert.equal(await fs.exists("dir/nested/a.txt"), true);
    assert.deepEqual(await fs.lstat("dir/nested/a.txt"), { type: "file", mode: (await fs.lstat("dir/nested/a.txt")).mode, size: 5 });
    await handle.process.exec("ln -s nested dir/link");
    assert.equal((await fs.lstat("dir/link")).type, "symlink");
    assert.equal(await fs.lstat("dir/missing"), undefined);
    await fs.remove("dir");
    assert.equal(await fs.exists("dir"), false);
    const seen = await witness().sandboxes.exec(handle.id, { command: "ls /workspace" });
    assert.ok(!seen.stdout.includes("dir"));
    await assert.rejects(fs.read("dir/a.txt"), (error) => error.code === "not-found" && error.status === 404);
  });

  test("env.set reaches later commands and is kept out of the sandbox record", async () => {
    await handle.env.set({ ROTATED_TOKEN: "v-123" });
    assert.equal((await handle.process.exec('printf %s "$ROTATED_TOKEN"')).stdout, "v-123");
    const record = await witness().sandboxes.get(handle.id);
    assert.ok(!JSON.stringify(record).includes("v-123"));
  });

  test("a spawned process streams stdout and stderr, and wait resolves with its exit code", async () => {
    const proc = await handle.process.spawn("echo out; echo err >&2; sleep 0.2; echo more; exit 4");
    assert.equal(typeof proc.pid, "number");
    assert.match(proc.processId, /./);
    const [out, err, code] = await Promise.all([collect(proc.stdout), collect(proc.stderr), proc.wait()]);
    // agentbox's output events do not carry a chunk's trailing newline (see README): compare the text, not the line ends
    assert.match(out, /^out\n?more\n?$/);
    assert.match(err, /err/);
    assert.equal(code, 4);
  });

  test("kill stops a long process, and an aborted spawn signal kills it too", async () => {
    const proc = await handle.process.spawn("sleep 60");
    const started = Date.now();
    await proc.kill();
    await proc.wait();
    assert.ok(Date.now() - started < 10_000);

    const controller = new AbortController();
    const aborted = await handle.process.spawn("sleep 60", { signal: controller.signal });
    controller.abort();
    await aborted.wait();
  });

  test("a signal goes to the process as asked, and one agentbox does not send is refused by the server", async () => {
    const proc = await handle.process.spawn("trap 'echo got-usr1; exit 0' USR1; echo ready; while true; do sleep 0.1; done");
    const out = [];
    const reading = (async () => {
      for await (const chunk of proc.stdout) out.push(chunk);
    })();
    assert.ok(await eventually(() => out.join("").includes("ready")));
    await proc.kill("SIGUSR1");
    assert.equal(await proc.wait(), 0);
    await reading;
    assert.match(out.join(""), /got-usr1/);
    const other = await handle.process.spawn("sleep 30");
    await assert.rejects(other.kill("SIGSTOP"), (error) => error.code === "invalid-request" && error.field === "signal");
    await other.kill();
  });

  test("snapshot returns agentbox's snapshot id, and fork is a new sandbox with the same files", async () => {
    await handle.fs.write("forked.txt", "from the source");
    const snapshot = await handle.snapshot("checkpoint");
    assert.equal(snapshot.label, "checkpoint");
    assert.equal((await witness().sandboxes.get(handle.id)).snapshotId, snapshot.id);
    const fork = await handle.fork();
    made.track(fork.id);
    assert.notEqual(fork.id, handle.id);
    assert.equal(fork.provider, "agentbox");
    assert.equal((await witness().sandboxes.exec(fork.id, { command: "cat forked.txt" })).stdout, "from the source");
    await fork.destroy();
    await assert.rejects(witness().sandboxes.get(fork.id), (error) => error.code === "not-found");
  });

  test("a port of a sandbox without network is TanStack's UnsupportedCapabilityError naming ports", async () => {
    await assert.rejects(handle.ports.connect(8080), (error) => error instanceof UnsupportedCapabilityError && error.capability === "ports" && error.provider === "agentbox");
  });

  test("a port of a bridge sandbox resolves to agentbox's proxy, which the channel's headers authenticate", async () => {
    const bridged = await (await providerFor({ policy: { network: "bridge" } })).create({});
    made.track(bridged.id);
    const channel = await bridged.ports.connect(8000);
    assert.match(channel.url, new RegExp(`/api/v1/sandboxes/${bridged.id}/ports/8000/proxy/$`));
    assert.equal(channel.headers.Authorization, `Bearer ${serverEnv().token}`);
    // nothing listens yet: the proxy itself answers (authenticated, so not 401)
    const response = await fetch(channel.url, { headers: channel.headers });
    await response.body?.cancel();
    assert.equal(response.status, 502);
  });

  test("operations on a destroyed sandbox fail with the server's not-found code", async () => {
    const gone = await provider.create({});
    made.track(gone.id);
    await gone.destroy();
    await assert.rejects(gone.process.exec("true"), (error) => error.code === "not-found");
    await assert.rejects(gone.fs.write("x", "y"), (error) => error.code === "not-found");
  });
});
