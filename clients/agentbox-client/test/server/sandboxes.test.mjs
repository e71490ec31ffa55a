import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { AgentboxProblem } from "../../dist/index.js";
import { clientA, drain, problemOf, removeSandbox, unique } from "../helpers/server.mjs";

const ab = clientA();

/** An HTTP server on 0.0.0.0:8000 in the image's perl: `/index.txt` answers "up\n", the rest 404. */
const TINY_HTTP_SERVER = String.raw`
use IO::Socket::INET;
my $s = IO::Socket::INET->new(LocalAddr => "0.0.0.0", LocalPort => 8000, Listen => 5, ReuseAddr => 1) or die "$!";
while (my $c = $s->accept) {
  my $request = <$c>;
  while (my $line = <$c>) { last if $line =~ /^\r?\n$/; }
  my ($path) = $request =~ m{^\S+ (\S+)};
  if ($path eq "/index.txt") { print $c "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\nConnection: close\r\n\r\nup\n"; }
  else { print $c "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"; }
  close $c;
}
`;
const made = new Set();
let key;
let capabilities;

/** Ensures a fresh sandbox of its own (reuse none) and remembers it for cleanup. */
async function ensureFresh(body = {}) {
  const sandbox = await ab.sandboxes.ensure({ ...body, lifecycle: { reuse: "none", keepAliveMs: 300_000, ...(body.lifecycle ?? {}) } });
  made.add(sandbox.key);
  return sandbox;
}

before(async () => {
  const sandbox = await ensureFresh({ workspace: { env: { GREETING: "hello" } } });
  key = sandbox.key;
  capabilities = sandbox.capabilities;
});

after(async () => {
  for (const k of made) await removeSandbox(ab, k);
});

test("providers list the enabled providers with their eleven capabilities", async () => {
  const providers = await ab.providers();
  assert.ok(providers.length >= 1);
  for (const provider of providers) {
    assert.equal(typeof provider.name, "string");
    assert.equal(typeof provider.available, "boolean");
    assert.deepEqual(Object.keys(provider.capabilities).sort(), [
      "backgroundProcesses", "durableFilesystem", "env", "exec", "fork", "fs", "killableProcesses",
      "networkPolicy", "ports", "snapshots", "writableStdin",
    ]);
  }
});

test("ensure creates, get and list show the sandbox, the same body again resumes it", async () => {
  const threadId = unique("t-ensure");
  const body = { threadId, lifecycle: { keepAliveMs: 120_000 } };
  const created = await ab.sandboxes.ensure(body);
  made.add(created.key);
  assert.equal(created.outcome, "created");
  assert.equal(created.workspaceRoot, "/workspace");
  assert.equal(created.threadId, threadId);
  const resumed = await ab.sandboxes.ensure(body);
  assert.equal(resumed.key, created.key);
  assert.equal(resumed.outcome, "resumed");
  const got = await ab.sandboxes.get(created.key);
  assert.equal(got.key, created.key);
  assert.equal(got.outcome, undefined);
  const keys = [];
  for await (const sandbox of ab.sandboxes.list({ pageSize: 2 })) keys.push(sandbox.key);
  assert.ok(keys.includes(created.key), "the paged list holds the new sandbox");
  assert.equal(new Set(keys).size, keys.length, "no sandbox comes twice across pages");
  const page = await ab.sandboxes.listPage({ limit: 1 });
  assert.equal(page.items.length, 1);
  if (keys.length > 1) assert.equal(typeof page.next, "string");
});

test("exec answers exit code, stdout and stderr; a non-zero exit is data", async () => {
  const result = await ab.sandboxes.exec(key, { command: "echo $GREETING; pwd; echo oops >&2; exit 3" });
  assert.equal(result.exitCode, 3);
  assert.equal(result.stdout, "hello\n/workspace\n");
  assert.equal(result.stderr, "oops\n");
  const withEnv = await ab.sandboxes.exec(key, { command: "echo $X", env: { X: "y" }, cwd: "/tmp" });
  assert.equal(withEnv.stdout, "y\n");
});

test("an exec that outlasts 1.5 s still answers its result", async () => {
  const result = await ab.sandboxes.exec(key, { command: "sleep 2; echo late" });
  assert.equal(result.exitCode, 0);
  assert.equal(result.stdout, "late\n");
});

test("env patches are seen by later commands, and null removes a variable", async () => {
  await ab.sandboxes.env(key, { env: { PATCHED: "1", GREETING: null } });
  const result = await ab.sandboxes.exec(key, { command: 'echo "${PATCHED}-${GREETING:-unset}"' });
  assert.equal(result.stdout, "1-unset\n");
  await ab.sandboxes.env(key, { env: { GREETING: "hello" } });
});

test("files: write, read bytes and text, list, stat, mkdir, move, remove", async () => {
  const bytes = new Uint8Array([0, 1, 2, 250, 255]);
  await ab.sandboxes.files.write(key, "data/bin.dat", bytes);
  assert.deepEqual(await ab.sandboxes.files.read(key, "data/bin.dat"), bytes);
  await ab.sandboxes.files.write(key, "/workspace/data/hello.txt", "héllo\n");
  assert.equal(await ab.sandboxes.files.readText(key, "data/hello.txt"), "héllo\n");
  await ab.sandboxes.files.mkdir(key, "data/sub/deeper");
  const entries = await ab.sandboxes.files.list(key, "data");
  assert.deepEqual(entries.map((e) => `${e.name}:${e.type}`).sort(), ["bin.dat:file", "hello.txt:file", "sub:dir"]);
  const stat = await ab.sandboxes.files.stat(key, "data/hello.txt");
  assert.equal(stat.type, "file");
  assert.equal(stat.size, 7);
  assert.equal((await ab.sandboxes.files.stat(key, "data/sub")).type, "dir");
  await ab.sandboxes.files.move(key, "data/hello.txt", "data/sub/moved.txt");
  assert.equal(await ab.sandboxes.files.readText(key, "data/sub/moved.txt"), "héllo\n");
  await problemOf(ab.sandboxes.files.read(key, "data/hello.txt"), 404, "not-found");
  await ab.sandboxes.files.remove(key, "data");
  await ab.sandboxes.files.remove(key, "data");
  await problemOf(ab.sandboxes.files.stat(key, "data"), 404, "not-found");
});

test("a background process streams its output, takes stdin where writable, and ends with its exit code", async () => {
  const { pid } = await ab.sandboxes.processes.start(key, {
    command: "echo started; echo warn >&2; read line; echo got:$line; exit 4",
  });
  assert.equal(typeof pid, "string");
  const output = drain(ab.sandboxes.processes.output(key, pid));
  if (capabilities.writableStdin) {
    await ab.sandboxes.processes.stdin(key, pid, "ping\n", { eof: true });
  } else {
    await problemOf(ab.sandboxes.processes.stdin(key, pid, "ping\n"), 422, "unsupported-capability");
    await ab.sandboxes.processes.kill(key, pid);
  }
  const chunks = await output;
  const stdout = chunks.filter((c) => c.stream === "stdout").map((c) => c.data).join("");
  const stderr = chunks.filter((c) => c.stream === "stderr").map((c) => c.data).join("");
  assert.match(stdout, /started/);
  assert.match(stderr, /warn/);
  const exit = chunks.at(-1);
  assert.equal(exit.stream, "exit");
  if (capabilities.writableStdin) {
    assert.match(stdout, /got:ping/);
    assert.equal(exit.exitCode, 4);
  }
});

test("a signal reaches the process, which may trap it; a kill without one ends it", async () => {
  assert.ok(capabilities.killableProcesses, "the docker provider kills processes");
  const { pid } = await ab.sandboxes.processes.start(key, {
    command: "trap 'echo got-usr1' USR1; echo ready; while true; do sleep 0.1; done",
  });
  const controller = new AbortController();
  const seen = [];
  const reading = (async () => {
    for await (const chunk of ab.sandboxes.processes.output(key, pid, { signal: controller.signal })) {
      seen.push(chunk);
      if (chunk.stream === "stdout" && chunk.data.includes("ready")) await ab.sandboxes.processes.kill(key, pid, "USR1");
      if (chunk.stream === "stdout" && chunk.data.includes("got-usr1")) await ab.sandboxes.processes.kill(key, pid);
    }
  })();
  const timer = setTimeout(() => controller.abort(), 20_000);
  await reading;
  clearTimeout(timer);
  assert.ok(seen.some((c) => c.stream === "stdout" && c.data.includes("got-usr1")), "the trap ran");
  assert.equal(seen.at(-1).stream, "exit", "the kill ended the process");
  await problemOf(ab.sandboxes.processes.kill(key, pid, "BOGUS"), 400, "invalid-request").then((p) => assert.equal(p.field, "signal"));
});

test("git status reads a repository made by exec", async () => {
  await ab.sandboxes.exec(key, {
    command: "mkdir -p repo && cd repo && git init -q -b main && git config user.email t@e && git config user.name t && " +
      "echo a > a.txt && git add a.txt && git commit -qm one && echo b > b.txt && echo c >> a.txt",
  });
  const status = await ab.sandboxes.git.status(key, { dir: "repo" });
  assert.equal(status.branch, "main");
  assert.equal(status.clean, false);
  assert.match(status.commit, /^[0-9a-f]{40}$/);
  const byPath = Object.fromEntries(status.entries.map((e) => [e.path, e.status]));
  assert.deepEqual(byPath, { "a.txt": "modified", "b.txt": "untracked" });
  const pull = await ab.sandboxes.git.pull(key, { dir: "repo" }).catch((e) => e);
  assert.ok(pull instanceof AgentboxProblem && pull.code === "git-failed" && pull.body.reason === "no-remote", String(pull));
  const notRepo = await ab.sandboxes.git.status(key, { dir: "/tmp" }).catch((e) => e);
  assert.ok(notRepo instanceof AgentboxProblem && notRepo.body.reason === "not-a-repository", String(notRepo));
});

test("snapshot and fork, where the provider has them", async () => {
  await ab.sandboxes.files.write(key, "fork-me.txt", "from the source");
  if (capabilities.snapshots) {
    const { snapshotId } = await ab.sandboxes.snapshot(key);
    assert.equal(typeof snapshotId, "string");
  } else {
    await problemOf(ab.sandboxes.snapshot(key), 422, "unsupported-capability");
  }
  if (capabilities.fork) {
    const fork = await ab.sandboxes.fork(key);
    made.add(fork.key);
    assert.notEqual(fork.key, key);
    assert.equal(fork.outcome, "created");
    assert.equal(await ab.sandboxes.files.readText(fork.key, "fork-me.txt"), "from the source");
  } else {
    await problemOf(ab.sandboxes.fork(key), 422, "unsupported-capability");
  }
});

test("ports: a network-none sandbox has none; a bridge sandbox's port is reached through the proxy", async () => {
  const refused = await problemOf(ab.sandboxes.port(key, 8000), 422, "unsupported-capability");
  assert.equal(refused.body.capability, "ports");
  let bridge;
  try {
    bridge = await ensureFresh({ policy: { network: "bridge" } });
  } catch (error) {
    // a server without bridge networks refuses it, naming the field
    assert.ok(error instanceof AgentboxProblem && error.status === 400, String(error));
    assert.equal(error.field, "policy.network");
    return;
  }
  await ab.sandboxes.files.write(bridge.key, "/tmp/serve.pl", TINY_HTTP_SERVER);
  const { pid } = await ab.sandboxes.processes.start(bridge.key, { command: "exec perl /tmp/serve.pl" });
  const access = await ab.sandboxes.port(bridge.key, 8000);
  assert.equal(access.proxied, true);
  assert.equal(access.url, ab.url(`/sandboxes/${bridge.key}/ports/8000/proxy/`));
  assert.equal(await ab.sandboxes.portUrl(bridge.key, 8000), access.url);
  let response;
  for (let i = 0; i < 50; i++) {
    try {
      response = await ab.sandboxes.fetchPort(bridge.key, 8000, "/index.txt");
      break;
    } catch (error) {
      if (!(error instanceof AgentboxProblem && error.code === "port-unreachable")) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  assert.ok(response, "the sandbox's server came up");
  assert.equal(response.status, 200);
  assert.equal(await response.text(), "up\n");
  const missing = await ab.sandboxes.fetchPort(bridge.key, 8000, "/nothing-here");
  assert.equal(missing.status, 404, "the sandbox's own 404 is returned, not thrown");
  await missing.body?.cancel();
  await ab.sandboxes.processes.kill(bridge.key, pid);
});

test("file events tell changes under the workspace", async () => {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 20_000);
  const seen = [];
  const watching = (async () => {
    for await (const event of ab.sandboxes.fileEvents(key, { signal: controller.signal })) {
      seen.push(event);
      if (event.path.endsWith("watched.txt")) controller.abort();
    }
  })();
  // the watcher starts with the stream: write until it reports
  for (let i = 0; i < 40 && !controller.signal.aborted; i++) {
    await ab.sandboxes.files.write(key, "watched.txt", `v${i}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await watching;
  clearTimeout(timer);
  const hit = seen.find((e) => e.path.endsWith("watched.txt"));
  assert.ok(hit, `a change of watched.txt was told (saw ${JSON.stringify(seen)})`);
  assert.ok(["create", "change"].includes(hit.type));
});

test("delete destroys the sandbox; a second delete is 404", async () => {
  const sandbox = await ensureFresh();
  await ab.sandboxes.delete(sandbox.key);
  await problemOf(ab.sandboxes.get(sandbox.key), 404, "not-found");
  await problemOf(ab.sandboxes.delete(sandbox.key), 404, "not-found");
});
