// Runs the typed client (clients/agentbox-client, its built dist/) inside Debian's Chromium
// against a running service: the client bundled for the browser by esbuild, imported from a Blob
// URL into a page of the service's own origin (/console/), so no CORS is involved. In the page it
// lists providers, ensures a sandbox, runs a command in it, starts a `command` run and reads its
// events to the end, and catches a typed problem; Node checks what the page saw.
// Options (one JSON argument): baseUrl, token (a tenant), chromium (the browser's path).
// Prints one JSON object as its last line: {"ok":true,"steps":[…],…} and exits 0, or
// {"ok":false,"error",…} and exits 1. The sandbox it made is deleted whatever happens.
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { chromium } from "playwright-core";

const ENTRY = fileURLToPath(new URL("../../../clients/agentbox-client/dist/index.js", import.meta.url));
const PAGE_DEADLINE_MS = 30000;

const steps = [];
const made = { sandbox: undefined };

function finish(result, code) {
  process.stdout.write(JSON.stringify(result) + "\n");
  process.exit(code);
}
function check(condition, message) {
  if (!condition) throw new Error(message);
}
async function step(name, fn) {
  const started = Date.now();
  const value = await fn();
  steps.push({ name, ms: Date.now() - started });
  return value;
}

let opts;
try {
  opts = JSON.parse(process.argv[2] ?? "");
  check(typeof opts.baseUrl === "string" && typeof opts.token === "string", "options baseUrl and token are required");
} catch (error) {
  finish({ ok: false, error: `usage: node browser-client.mjs '{"baseUrl":"…","token":"…"}' (${error.message})` }, 2);
}
const base = opts.baseUrl.replace(/\/$/, "");

/**
 * Everything the page does, serialized into it by page.evaluate: it may use only its argument
 * and the page's globals. It never throws; what went wrong is returned as `error`, next to what it
 * saw up to then, so that Node reports it and the sandbox is still deleted here in `finally`.
 */
async function inPage({ code, token, threadId, runId, missingKey, timeoutMs }) {
  const seen = { userAgent: navigator.userAgent, origin: location.origin };
  const url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
  let client;
  let key;
  try {
    const mod = await import(url);
    const { AgentboxClient, AgentboxProblem } = mod;
    client = new AgentboxClient({ baseUrl: location.origin, token });

    const providers = await client.providers();
    seen.providers = Array.isArray(providers) ? providers.map((p) => p.name ?? p.id ?? p) : providers;

    const sandbox = await client.sandboxes.ensure({ threadId });
    key = sandbox.key;
    seen.sandboxKey = key;
    await window.reportSandbox(key); // Node learns the key at once, in case the page dies later

    const exec = await client.sandboxes.exec(key, { command: "echo browser-$((6*7))" });
    seen.exec = { exitCode: exec.exitCode, stdout: exec.stdout, stderr: exec.stderr };

    const accepted = await client.runs.start({
      runId,
      threadId,
      sandbox: { key },
      harness: "command",
      command: `for i in 1 2 3; do echo "{\\"delta\\":\\"b$i \\"}"; sleep 0.2; done`,
      prompt: "x",
    });
    seen.accepted = { runId: accepted.runId, status: accepted.status };
    seen.types = [];
    seen.ids = [];
    seen.text = "";
    for await (const event of client.runs.events(runId, { signal: AbortSignal.timeout(timeoutMs) })) {
      seen.types.push(event.type);
      seen.ids.push(event.id);
      if (event.type === "TEXT_MESSAGE_CONTENT") seen.text += event.data.delta;
    }

    const problem = await client.sandboxes.get(missingKey).then(
      (value) => ({ resolved: value }),
      (e) => ({ name: e?.name, isClass: e instanceof AgentboxProblem, isError: e instanceof Error, status: e?.status, code: e?.code, message: e?.message }),
    );
    seen.problem = problem;
  } catch (e) {
    seen.error = String(e?.stack ?? e);
  } finally {
    if (key !== undefined && client !== undefined) {
      seen.deleted = await client.sandboxes.delete(key).then(() => true, (e) => String(e));
    }
    URL.revokeObjectURL(url);
  }
  return seen;
}

let browser;
let result;
try {
  const code = await step("bundle the client for the browser (esbuild, platform browser)", async () => {
    const out = await build({ entryPoints: [ENTRY], bundle: true, format: "esm", platform: "browser", write: false, logLevel: "silent" });
    check(out.errors.length === 0, `esbuild errors: ${JSON.stringify(out.errors)}`);
    check(out.outputFiles.length === 1, `esbuild wrote ${out.outputFiles.length} files`);
    return out.outputFiles[0].text;
  });

  const page = await step("open the console page in Chromium", async () => {
    browser = await chromium.launch({
      executablePath: opts.chromium ?? "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    await page.exposeFunction("reportSandbox", (key) => {
      made.sandbox = key;
    });
    const res = await page.goto(`${base}/console/`);
    check(res?.status() === 200, `/console/ answered ${res?.status()}`);
    return page;
  });

  const suffix = randomUUID();
  const args = {
    code,
    token: opts.token,
    threadId: `t-browser-${suffix}`,
    runId: `r-browser-${suffix}`,
    missingKey: `no-such-sandbox-${suffix}`,
    timeoutMs: PAGE_DEADLINE_MS - 5000,
  };
  const seen = await step("drive the client in the page", () => {
    let timer;
    const deadline = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the page did not finish within ${PAGE_DEADLINE_MS} ms`)), PAGE_DEADLINE_MS);
    });
    return Promise.race([page.evaluate(inPage, args), deadline]).finally(() => clearTimeout(timer));
  });
  if (seen.deleted === true) made.sandbox = undefined;

  await step("check what the page saw", async () => {
    check(seen.error === undefined, `in the page: ${seen.error}`);
    check(/Chrome\//.test(seen.userAgent), `not Chromium: ${seen.userAgent}`);
    check(seen.origin === new URL(base).origin, `page origin ${seen.origin}, expected ${new URL(base).origin}`);
    check(Array.isArray(seen.providers) && seen.providers.length > 0, `providers: ${JSON.stringify(seen.providers)}`);
    check(typeof seen.sandboxKey === "string" && seen.sandboxKey !== "", "ensure gave no key");
    check(seen.exec.exitCode === 0 && seen.exec.stdout.trim() === "browser-42", `exec: ${JSON.stringify(seen.exec)}`);
    check(seen.accepted.runId === args.runId, `start: ${JSON.stringify(seen.accepted)}`);
    check(seen.types[0] === "RUN_STARTED", `first event ${seen.types[0]}`);
    check(seen.types.at(-1) === "RUN_FINISHED", `last event ${seen.types.at(-1)}`);
    check(seen.types.filter((t) => t === "RUN_STARTED" || t === "RUN_FINISHED").length === 2, `types: ${seen.types}`);
    check(seen.text === "b1 b2 b3 ", `deltas ${JSON.stringify(seen.text)}`);
    check(new Set(seen.ids).size === seen.ids.length, `repeated ids: ${seen.ids}`);
    const p = seen.problem;
    check(p.resolved === undefined, `get of a missing sandbox resolved: ${JSON.stringify(p.resolved)}`);
    check(p.name === "AgentboxProblem" && p.isClass && p.isError, `not an AgentboxProblem: ${JSON.stringify(p)}`);
    check(p.status === 404 && p.code === "not-found", `problem ${p.status} ${p.code}`);
    check(seen.deleted === true, `delete: ${seen.deleted}`);
  });

  result = {
    ok: true,
    steps,
    userAgent: seen.userAgent,
    bundleBytes: code.length,
    providers: seen.providers,
    exec: seen.exec.stdout.trim(),
    events: seen.types,
    text: seen.text,
    problem: { name: seen.problem.name, status: seen.problem.status, code: seen.problem.code },
  };
} catch (error) {
  result = { ok: false, error: String(error?.stack ?? error), steps };
} finally {
  await browser?.close().catch(() => {});
  if (made.sandbox !== undefined) {
    // The page made a sandbox and did not delete it (it failed or was cut off): delete it from here.
    const res = await fetch(`${base}/api/v1/sandboxes/${encodeURIComponent(made.sandbox)}`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${opts.token}` },
    }).catch((e) => ({ status: String(e) }));
    result.cleanup = { sandbox: made.sandbox, status: res.status };
  }
}
finish(result, result.ok ? 0 : 1);
