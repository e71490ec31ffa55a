// The mapping from TanStack's contract to agentbox's API, without a server.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { UnsupportedCapabilityError } from "@tanstack/ai-sandbox";
import { AgentboxProblem } from "agentbox-client";
import { agentboxSandbox, signalName, toEnsureBody, toSandboxCapabilities, translateError } from "../../dist/index.js";

const DOCKER = {
  fs: true, exec: true, env: true, ports: true, backgroundProcesses: true, writableStdin: false,
  killableProcesses: true, snapshots: true, networkPolicy: true, durableFilesystem: true, fork: true,
};

describe("options and create input → ensure body", () => {
  test("a TanStack id becomes the thread of a thread-reused sandbox, so the same id ensures the same key", () => {
    assert.deepEqual(toEnsureBody({ baseUrl: "x" }, { id: "abc123" }), { threadId: "abc123", lifecycle: { reuse: "thread" } });
  });

  test("without an id every create is a new sandbox", () => {
    assert.deepEqual(toEnsureBody({ baseUrl: "x" }, {}), { lifecycle: { reuse: "none" } });
  });

  test("image, provider, definition, policy and lifecycle options go into the body as given", () => {
    const body = toEnsureBody(
      {
        baseUrl: "x", token: "t", image: "agentbox/sandbox:bookworm", provider: "docker", definitionId: "d",
        policy: { network: "egress", egress: { allow: ["registry.npmjs.org"] }, memoryMb: 512 },
        lifecycle: { snapshot: "after-setup", keepAliveMs: 60000 }, execTimeoutMs: 5000,
      },
      { id: "k" },
    );
    assert.deepEqual(body, {
      definitionId: "d", provider: "docker", image: "agentbox/sandbox:bookworm", threadId: "k",
      policy: { network: "egress", egress: { allow: ["registry.npmjs.org"] }, memoryMb: 512 },
      lifecycle: { snapshot: "after-setup", keepAliveMs: 60000, reuse: "thread" },
    });
  });

  test("a TanStack git source is cloned by agentbox: shallow by default, full as depth 0, credentials as secrets and never in the URL", () => {
    const shallow = toEnsureBody({ baseUrl: "x" }, { workspace: { source: { type: "git", url: "https://git.example/r.git", ref: "main" } } });
    assert.deepEqual(shallow.workspace, { source: { type: "git", url: "https://git.example/r.git", ref: "main", depth: 1 } });
    const full = toEnsureBody(
      { baseUrl: "x" },
      { workspace: { source: { type: "git", url: "https://git.example/r.git", depth: "full", auth: { username: "bot", token: "tok" } } } },
    );
    assert.deepEqual(full.workspace, {
      source: { type: "git", url: "https://git.example/r.git", depth: 0 },
      secrets: { GIT_TOKEN: "tok", GIT_USERNAME: "bot" },
    });
  });

  test("a git source under a custom root is left to TanStack's own clone, since agentbox clones into /workspace", () => {
    const body = toEnsureBody({ baseUrl: "x" }, { workspace: { root: "/srv/app", source: { type: "git", url: "https://git.example/r.git" } } });
    assert.equal(body.workspace, undefined);
  });

  test("a local source maps to agentbox's local source; none sends no source", () => {
    assert.deepEqual(toEnsureBody({ baseUrl: "x" }, { workspace: { source: { type: "local", path: "proj" } } }).workspace, { source: { type: "local", path: "proj" } });
    assert.equal(toEnsureBody({ baseUrl: "x" }, { workspace: { source: { type: "none" } } }).workspace, undefined);
  });

  test("the TanStack workspace's setup is not sent (bootstrapWorkspace runs it), agentbox's own workspace is", () => {
    const body = toEnsureBody(
      { baseUrl: "x", workspace: { setup: ["apt-get --version"], env: { CI: "1" }, source: { type: "none" } } },
      { workspace: { source: { type: "git", url: "https://git.example/r.git" }, setup: ["npm ci"] } },
    );
    assert.deepEqual(body.workspace, { setup: ["apt-get --version"], env: { CI: "1" }, source: { type: "none" } });
  });

  test("the create's env (resolved workspace secrets) becomes agentbox secrets, over the options' own", () => {
    const body = toEnsureBody({ baseUrl: "x", workspace: { secrets: { A: "1", B: "2" } } }, { env: { B: "3", C: "4" } });
    assert.deepEqual(body.workspace, { secrets: { A: "1", B: "3", C: "4" } });
  });
});

describe("capabilities", () => {
  test("are exactly what the server reports, killableProcesses included", () => {
    assert.deepEqual(toSandboxCapabilities(DOCKER), DOCKER);
  });

  test("a capability the server does not name is false, and unknown extra names are dropped", () => {
    const caps = toSandboxCapabilities({ fs: true, exec: true, teleport: true });
    assert.equal(caps.fs, true);
    assert.equal(caps.killableProcesses, false);
    assert.equal(caps.snapshots, false);
    assert.equal("teleport" in caps, false);
  });
});

describe("errors", () => {
  test("422 unsupported-capability becomes TanStack's UnsupportedCapabilityError naming the capability", () => {
    const problem = new AgentboxProblem(422, { code: "unsupported-capability", title: "Unsupported capability", detail: "no network", capability: "ports", provider: "docker" });
    const error = translateError(problem);
    assert.ok(error instanceof UnsupportedCapabilityError);
    assert.equal(error.capability, "ports");
    assert.equal(error.provider, "agentbox");
    assert.equal(error.cause, problem);
  });

  test("every other problem stays the AgentboxProblem with its code and field", () => {
    const problem = new AgentboxProblem(400, { code: "invalid-request", title: "Invalid", field: "signal" });
    assert.equal(translateError(problem), problem);
    const network = new TypeError("fetch failed");
    assert.equal(translateError(network), network);
  });

  test("Node signals map to agentbox's names; one agentbox lacks is passed on for the server to refuse", () => {
    assert.equal(signalName("SIGTERM"), "TERM");
    assert.equal(signalName("SIGUSR1"), "USR1");
    assert.equal(signalName(9), "KILL");
    assert.equal(signalName(2), "INT");
    assert.equal(signalName("SIGSTOP"), "STOP");
    assert.equal(signalName(19), "19");
  });
});

/** A fetch that answers from a table of `METHOD path` → [status, body]. */
function fakeFetch(routes, calls = []) {
  return async (url, init = {}) => {
    const { pathname } = new URL(url);
    const route = `${init.method ?? "GET"} ${pathname.replace(/^\/api\/v1/, "")}`;
    calls.push({ route, init });
    const answer = routes[route];
    if (!answer) return new Response(JSON.stringify({ code: "not-found", title: "Not found", status: 404 }), { status: 404, headers: { "content-type": "application/problem+json" } });
    const [status, body] = answer;
    return new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { "content-type": status >= 400 ? "application/problem+json" : "application/json" } });
  };
}

const VIEW = { key: "k1", provider: "docker", providerSandboxId: "c1", workspaceRoot: "/workspace", createdAt: "2026-01-01T00:00:00Z", lastUsedAt: "2026-01-01T00:00:00Z", capabilities: { ...DOCKER, writableStdin: true } };

describe("the provider over a fake server", () => {
  test("declares the capabilities of the provider GET /providers reports, not a sandbox's own", async () => {
    const provider = await agentboxSandbox({
      baseUrl: "http://agentbox.test", token: "t",
      fetch: fakeFetch({ "GET /providers": [200, [{ name: "local", available: true, capabilities: { ...DOCKER, networkPolicy: false } }, { name: "docker", available: true, capabilities: DOCKER }]], "POST /sandboxes": [201, VIEW] }),
    });
    assert.equal(provider.backend, "docker");
    assert.deepEqual(provider.capabilities(), DOCKER);
    const handle = await provider.create({});
    assert.equal(handle.capabilities.writableStdin, false);
    assert.equal(handle.id, "k1");
    assert.equal(handle.workspaceRoot, "/workspace");
  });

  test("resume answers null for an unknown key, and destroy of a gone sandbox is quiet", async () => {
    const provider = await agentboxSandbox({ baseUrl: "http://agentbox.test", fetch: fakeFetch({ "GET /providers": [200, [{ name: "docker", available: true, capabilities: DOCKER }]] }) });
    assert.equal(await provider.resume({ id: "missing" }), null);
    await provider.destroy({ id: "missing" });
  });

  test("a capability the provider lacks fails before any request, as UnsupportedCapabilityError", async () => {
    const calls = [];
    const provider = await agentboxSandbox({
      baseUrl: "http://agentbox.test",
      fetch: fakeFetch({ "GET /providers": [200, [{ name: "docker", available: true, capabilities: { ...DOCKER, fork: false, snapshots: false, backgroundProcesses: false } }]], "POST /sandboxes": [201, VIEW] }, calls),
    });
    const handle = await provider.create({});
    const before = calls.length;
    await assert.rejects(handle.fork(), (e) => e instanceof UnsupportedCapabilityError && e.capability === "fork");
    await assert.rejects(handle.snapshot(), (e) => e instanceof UnsupportedCapabilityError && e.capability === "snapshots");
    await assert.rejects(handle.process.spawn("sleep 1"), (e) => e instanceof UnsupportedCapabilityError && e.capability === "backgroundProcesses");
    assert.equal(calls.length, before);
  });

  test("stdin refused by the server is UnsupportedCapabilityError naming writableStdin", async () => {
    const provider = await agentboxSandbox({
      baseUrl: "http://agentbox.test",
      fetch: fakeFetch({
        "GET /providers": [200, [{ name: "docker", available: true, capabilities: DOCKER }]],
        "POST /sandboxes": [201, VIEW],
        "POST /sandboxes/k1/processes": [201, { pid: "p1" }],
        "POST /sandboxes/k1/processes/p1/stdin": [422, { code: "unsupported-capability", title: "Unsupported", capability: "writableStdin", provider: "docker" }],
      }),
    });
    const proc = await (await provider.create({})).process.spawn("cat");
    await assert.rejects(proc.stdin.write("hi"), (e) => e instanceof UnsupportedCapabilityError && e.capability === "writableStdin");
    await assert.rejects(proc.wait()); // the fake has no output stream: wait rejects, never invents an exit code
  });

  test("env.set patches secrets by default and env when asked, and sends nothing for no variables", async () => {
    for (const [envSetAs, member] of [[undefined, "secrets"], ["env", "env"]]) {
      const calls = [];
      const provider = await agentboxSandbox({
        baseUrl: "http://agentbox.test", envSetAs,
        fetch: fakeFetch({ "GET /providers": [200, [{ name: "docker", available: true, capabilities: DOCKER }]], "POST /sandboxes": [201, VIEW], "PATCH /sandboxes/k1/env": [204] }, calls),
      });
      const handle = await provider.create({});
      await handle.env.set({});
      await handle.env.set({ A: "1" });
      const patches = calls.filter((c) => c.route === "PATCH /sandboxes/k1/env");
      assert.equal(patches.length, 1);
      assert.deepEqual(JSON.parse(patches[0].init.body), { [member]: { A: "1" } });
    }
  });
});
