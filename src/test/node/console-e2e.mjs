// Drives the operator console (/console) in Debian's Chromium through playwright-core, against a
// running service with real sandboxes. Options (one JSON argument): baseUrl, token (a tenant),
// adminToken, screenshots (a folder), chromium (the browser's path), thread (of the runs it starts;
// random by default). Prints one JSON object:
// {"checks":[…passed…]} and exits 0, or {"error", "checks"} and exits 1 with a screenshot of
// the page that failed. Every run and sandbox it made is cancelled or destroyed at the end.
import { mkdirSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { chromium } from "playwright-core";
import { startConsoleProxy } from "./console-proxy.mjs";
import { emit, options } from "./script-io.mjs";

const opts = options(["baseUrl", "token", "adminToken", "screenshots"]);
const base = opts.baseUrl.replace(/\/$/, "");
const shots = opts.screenshots;
mkdirSync(shots, { recursive: true });

const checks = [];
const made = { runs: [], sandboxes: new Set() };
const thread = opts.thread ?? `t-console-${randomUUID()}`;
const words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa".split(" ");
const HOSTILE = "<img src=x onerror=alert(1)>";

/** A streaming agent: text word by word, one tool call, then hostile text as plain data. */
const STREAMING_AGENT = [
  `printf '{"delta":"Reading the workspace."}\\n'; sleep 1`,
  `printf '{"type":"TOOL_CALL_START","toolCallName":"list_files"}\\n{"type":"TOOL_CALL_ARGS","delta":"{\\\\"path\\\\":\\\\".\\\\"}"}\\n{"type":"TOOL_CALL_END"}\\n{"type":"TOOL_CALL_RESULT","content":"notes.txt"}\\n'`,
  `for w in ${words.join(" ")}; do sleep 0.4; printf '{"delta":" %s"}\\n' "$w"; done`,
  `printf '{"delta":" ${HOSTILE}"}\\n'`,
].join("; ");
const EXPECTED_TEXT = `Reading the workspace.`;
const EXPECTED_WORDS = ` ${words.join(" ")} ${HOSTILE}`;
const LONG_AGENT = `printf '{"delta":"waiting for cancel"}\\n'; sleep 600`;

// ---- the API, straight (setup, cleanup and the values the UI must show) ----
async function api(path, { token = opts.token, method = "GET", body } = {}) {
  const headers = { Authorization: `Bearer ${token}` };
  if (body) headers["Content-Type"] = "application/json";
  const res = await fetch(base + path, { method, headers, body: body && JSON.stringify(body) });
  const text = (await res.text()).trim();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}
const runPath = (id) => `/api/v1/runs/${encodeURIComponent(id)}`;

async function startRun(runId, command, definitionId) {
  const r = await api("/api/v1/runs", {
    method: "POST",
    body: { runId, threadId: thread, harness: "command", command, sandbox: { definitionId } },
  });
  if (r.status !== 202) throw new Error(`POST /runs ${r.status}: ${JSON.stringify(r.body)}`);
  made.runs.push(runId);
}

// ---- small helpers ----
async function until(what, fn, ms = 30000) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what} (last: ${last})`);
}
function check(condition, message) {
  if (!condition) throw new Error(message);
}
async function step(name, page, fn) {
  const started = Date.now();
  try {
    await fn();
    checks.push({ name, ms: Date.now() - started });
  } catch (error) {
    await page?.screenshot({ path: `${shots}/FAILED-${name.replace(/\W+/g, "-")}.png`, fullPage: true }).catch(() => {});
    throw new Error(`${name}: ${error.message}`, { cause: error });
  }
}

/** A page that fails the run on a script error or a Content-Security-Policy violation. */
async function newPage(browser, viewport, pageErrors) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.on("pageerror", (e) => pageErrors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" && /Content Security Policy|Uncaught/i.test(m.text())) pageErrors.push(m.text());
  });
  return page;
}
async function signIn(page, origin, token) {
  await page.goto(`${origin}/console/`);
  await page.getByLabel("Bearer token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.locator("#nav").waitFor({ state: "visible" });
}

// ---- the checks ----
const pageErrors = [];
let browser;
let proxy;
let page;
try {
  await step("CO-01 security headers and redirect", null, async () => {
    const res = await fetch(`${base}/console/`);
    check(res.status === 200, `/console/ answered ${res.status}`);
    const csp = res.headers.get("content-security-policy") ?? "";
    for (const d of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'"]) {
      check(csp.includes(d), `CSP lacks ${d}: ${csp}`);
    }
    check(res.headers.get("x-content-type-options") === "nosniff", "no nosniff");
    check(res.headers.get("referrer-policy") === "no-referrer", "no Referrer-Policy");
    check(res.headers.get("cache-control") === "no-cache", "no Cache-Control: no-cache");
    const html = await res.text();
    check(!/<script(?![^>]*\ssrc=)[^>]*>/i.test(html) && !/\sstyle=/i.test(html) && !/<style/i.test(html), "inline script or style in index.html");
    const redirect = await fetch(`${base}/console`, { redirect: "manual" });
    check(redirect.status >= 301 && redirect.status <= 308, `/console answered ${redirect.status}`);
    check(new URL(redirect.headers.get("location"), base).pathname === "/console/", `redirect to ${redirect.headers.get("location")}`);
    const js = await fetch(`${base}/console/js/app.js`);
    check(js.status === 200 && /javascript/.test(js.headers.get("content-type")), `app.js: ${js.status} ${js.headers.get("content-type")}`);
    check((await fetch(`${base}/api/v1/runs`)).status === 401, "the API answered without a token");
  });

  proxy = await startConsoleProxy(base, { cutAfter: 4 });
  const origin = proxy.url;
  browser = await chromium.launch({
    executablePath: opts.chromium ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic"],
  });
  page = await newPage(browser, { width: 1280, height: 800 }, pageErrors);

  await step("CO-02 a wrong token is refused with the API's problem", page, async () => {
    const expected = (await api("/api/v1/runs", { token: "not-a-token" })).body;
    await page.goto(`${origin}/console/`);
    await page.getByLabel("Bearer token").fill("not-a-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    const problem = page.locator(".problem");
    await problem.waitFor();
    const text = await problem.textContent();
    check(text.includes(expected.title) && text.includes(expected.detail), `shown: ${text}; API: ${JSON.stringify(expected)}`);
    check(await page.locator("#nav").isHidden(), "navigation shown while signed out");
  });

  await step("CO-02 a tenant signs in and sees no Operations", page, async () => {
    // With the keyboard: the field has focus after the refusal, Enter submits.
    await page.getByLabel("Bearer token").fill(opts.token);
    await page.getByLabel("Bearer token").press("Enter");
    await page.locator("#nav").waitFor({ state: "visible" });
    check(await page.locator("#nav-operations").isHidden(), "Operations offered to a non-admin tenant");
    check((await page.locator("#who").textContent()).includes("Signed in"), "no signed-in marker");
    check((await page.evaluate(() => sessionStorage.length)) === 1, "the token is not in sessionStorage");
  });

  const runA = `console/${randomUUID()}`; // a slash: the console must encode it in paths
  const runB = `console-cancel-${randomUUID()}`;
  await startRun(runA, STREAMING_AGENT, `console-e2e-${randomUUID()}`);

  await step("CO-03 the runs list shows the run, filtered by thread and status, refreshing itself", page, async () => {
    await page.getByLabel("Thread").fill(thread);
    await page.locator(`tr[data-run-id="${runA}"]`).waitFor();
    // A run started while the list is open appears without any action in the page.
    await startRun(runB, LONG_AGENT, `console-e2e-${randomUUID()}`);
    await page.locator(`tr[data-run-id="${runB}"]`).waitFor({ timeout: 10000 });
    await page.getByLabel("Status").selectOption("completed");
    await until("the running runs to leave the completed filter", async () => (await page.locator("table.runs tbody tr").count()) === 0, 5000);
    await page.getByLabel("Status").selectOption("");
    await page.locator(`tr[data-run-id="${runA}"]`).waitFor();
    const rows = await page.locator("table.runs tbody tr").count();
    check(rows === 2, `filter by thread shows ${rows} rows`);
    const cells = await page.locator(`tr[data-run-id="${runA}"] td`).allTextContents();
    check(cells[2] === thread && cells[3] === "command", `row cells: ${cells}`);
  });

  await step("CO-03 Load more follows a Link rel=next header", page, async () => {
    // The list API may page its answers (Link: <…>; rel="next"). Here the header is added to the
    // server's real first page and the second page is made up, so what is tested is the console:
    // it offers the button only with the header, follows the link, and appends what it got.
    check(await page.locator(".load-more").isHidden(), "Load more without a Link header");
    const second = { runId: `paged-${randomUUID()}`, threadId: thread, status: "completed", harness: "command", startedAt: new Date().toISOString() };
    await page.route(/\/api\/v1\/runs\?/, async (route) => {
      const url = new URL(route.request().url());
      if (url.searchParams.get("page") === "2") {
        return route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify([second]) });
      }
      const res = await route.fetch();
      url.searchParams.set("page", "2");
      return route.fulfill({ response: res, headers: { ...res.headers(), link: `<${url.pathname}${url.search}>; rel="next"` } });
    });
    await page.locator(".load-more").waitFor({ state: "visible" });
    await page.getByRole("button", { name: "Load more" }).click();
    await page.locator(`tr[data-run-id="${second.runId}"]`).waitFor();
    await page.unroute(/\/api\/v1\/runs\?/);
    await until("Load more to go once the last page is in", () => page.locator(".load-more").isHidden(), 5000);
    check((await page.locator(`tr[data-run-id="${runA}"]`).count()) === 1, "the first page's run is gone");
  });

  await step("CO-04 the run view streams the text as it arrives, through a cut connection", page, async () => {
    await page.locator(`tr[data-run-id="${runA}"] a`).click();
    await page.waitForURL(`**/console/#/runs/${encodeURIComponent(runA)}`);
    const transcript = page.locator("#transcript");
    const samples = [];
    await until(
      "RUN_FINISHED in the transcript",
      async () => {
        const text = await transcript.locator(".message").allTextContents();
        const status = await page.locator(".record").getAttribute("data-status");
        const joined = text.join("|");
        if (samples.at(-1)?.text !== joined) samples.push({ text: joined, status });
        return (await transcript.getAttribute("data-stream")) === "ended";
      },
      90000,
    );
    const growing = samples.filter((s) => s.status === "running" && s.text.includes("alpha") && !s.text.includes("papa"));
    check(growing.length >= 2, `text did not arrive while the run ran: ${JSON.stringify(samples.map((s) => [s.status, s.text.length]))}`);
    const messages = await transcript.locator(".message .text").allTextContents();
    check(messages.join("") === EXPECTED_TEXT + EXPECTED_WORDS, `transcript text: ${JSON.stringify(messages)}`);
    check((await transcript.locator("img").count()) === 0, "agent output became markup");
    const tool = transcript.locator("details.tool");
    check((await tool.locator("summary").textContent()).includes("list_files"), "no tool call");
    await tool.locator("summary").click();
    check((await tool.locator("pre.args").textContent()).includes('"path": "."'), "tool arguments missing");
    check((await tool.locator("pre.result").textContent()) === "notes.txt", "tool result missing");
    await until("status completed", async () => (await page.locator(".record").getAttribute("data-status")) === "completed", 10000);
    check(proxy.state.cut, "the proxy never cut the events stream");
    const resumed = proxy.state.eventsRequests.slice(1);
    check(resumed.length >= 1 && resumed[0].lastEventId, `no reconnect with Last-Event-ID: ${JSON.stringify(proxy.state.eventsRequests)}`);
    await page.screenshot({ path: `${shots}/run-view.png` });
  });

  await step("CO-04 the raw events are exactly the run's log: no gap, no duplicate", page, async () => {
    await page.getByRole("button", { name: "Raw events" }).click();
    await page.locator("#raw-events").waitFor({ state: "visible" });
    const ids = await page.locator("#raw-events tbody tr td:first-child").allTextContents();
    const types = await page.locator("#raw-events tbody tr td:nth-child(2)").allTextContents();
    const log = (await api(`${runPath(runA)}/log`)).body;
    check(JSON.stringify(ids) === JSON.stringify(log.map((e) => e.offset)), `raw ids ${ids} vs log ${log.map((e) => e.offset)}`);
    check(JSON.stringify(types) === JSON.stringify(log.map((e) => e.chunk.type)), "raw event types differ from the log");
    await page.screenshot({ path: `${shots}/run-raw-events.png`, fullPage: true });
  });

  await step("CO-05 Cancel, confirmed, ends the run aborted", page, async () => {
    await page.goto(`${origin}/console/#/runs/${encodeURIComponent(runB)}`);
    await page.locator("#transcript .message", { hasText: "waiting for cancel" }).waitFor({ timeout: 60000 });
    await page.getByRole("button", { name: "Cancel run" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Cancel run" }).click();
    await until("status aborted", async () => (await page.locator(".record").getAttribute("data-status")) === "aborted", 60000);
    await page.locator("#transcript .run-error", { hasText: "aborted" }).waitFor({ timeout: 30000 });
    check((await page.locator("#cancel-run").isHidden()), "Cancel still offered on a terminal run");
    check((await api(runPath(runB))).body.status === "aborted", "the API does not say aborted");
  });

  const sandboxKey = (await api(runPath(runA))).body.sandboxKey;
  made.sandboxes.add(sandboxKey);
  await step("CO-06 a sandbox's exec box shows exit code, stdout and stderr", page, async () => {
    await page.goto(`${origin}/console/#/sandboxes`);
    // The list shows what the sandbox was made from, as the API records it.
    const row = page.locator(`tr[data-key="${sandboxKey}"]`);
    await row.waitFor({ timeout: 15000 });
    const rec = (await api(`/api/v1/sandboxes/${encodeURIComponent(sandboxKey)}`)).body;
    check((await row.locator('td[data-label="Image"]').textContent()) === (rec.image ?? "default"), "image cell");
    check((await row.locator('td[data-label="Ports"]').textContent()) === (rec.ports?.join(", ") ?? "—"), "ports cell");
    await row.locator("a").click();
    await page.getByLabel(/^Command/).fill("mkdir -p docs && echo console-file > docs/readme.txt && echo hello-console && echo oops >&2; exit 3");
    await page.getByRole("button", { name: "Run" }).click();
    await page.locator(".exit-code").waitFor({ timeout: 30000 });
    check((await page.locator(".exit-code").textContent()) === "3", "exit code");
    check((await page.locator("pre.stdout").textContent()) === "hello-console\n", "stdout");
    check((await page.locator("pre.stderr").textContent()) === "oops\n", "stderr");
    await page.screenshot({ path: `${shots}/sandbox-exec.png`, fullPage: true });
  });

  await step("CO-06 the file browser reads the workspace, refreshed after the exec", page, async () => {
    await page.getByRole("button", { name: "docs/" }).click();
    await page.getByRole("button", { name: "readme.txt" }).click();
    await until("the file's content", async () => (await page.locator("pre.file-content").textContent()) === "console-file\n", 15000);
  });

  await step("CO-06 Destroy, confirmed, removes the sandbox", page, async () => {
    await page.getByRole("button", { name: "Destroy sandbox" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Destroy" }).click();
    await page.waitForURL("**/console/#/sandboxes");
    await until("the sandbox to be gone", async () => (await api(`/api/v1/sandboxes/${encodeURIComponent(sandboxKey)}`)).status === 404, 30000);
    made.sandboxes.delete(sandboxKey);
  });

  await step("CO-07 a non-admin tenant forcing Operations sees the API's 403", page, async () => {
    const expected = (await api("/api/v1/admin/reaper")).body;
    check(expected.status === 403, `the API gave ${expected.status}`);
    await page.goto(`${origin}/console/#/operations`);
    const problem = page.locator(".problem");
    await problem.waitFor();
    const text = await problem.textContent();
    check(text.includes(expected.title) && text.includes(expected.detail) && text.includes("403"), `shown: ${text}`);
    check((await page.locator("#sweep-now").count()) === 0, "Sweep now offered to a non-admin");
  });

  await step("CO-08 at 390x844 the runs list shows", page, async () => {
    const phone = await newPage(browser, { width: 390, height: 844 }, pageErrors);
    await signIn(phone, origin, opts.token);
    await phone.getByLabel("Thread").fill(thread);
    const row = phone.locator(`tr[data-run-id="${runA}"]`);
    await row.waitFor();
    const box = await row.boundingBox();
    check(box.x >= 0 && box.x + box.width <= 390, `row outside the viewport: ${JSON.stringify(box)}`);
    const scroll = await phone.evaluate(() => document.documentElement.scrollWidth);
    check(scroll <= 390, `the page scrolls sideways: ${scroll}px`);
    await phone.screenshot({ path: `${shots}/runs-phone.png`, fullPage: true });
    await phone.context().close();
  });

  await step("CO-07 the admin tenant sweeps from Operations and sees the result", page, async () => {
    const admin = await newPage(browser, { width: 1280, height: 800 }, pageErrors);
    await signIn(admin, origin, opts.adminToken);
    check(await admin.locator("#nav-operations").isVisible(), "Operations not offered to the admin");
    await admin.locator("#nav-operations").click();
    await admin.locator("#reaper-title").waitFor();
    check(await admin.getByRole("button", { name: "Prune journals" }).isVisible(), "no Prune journals");
    await admin.getByRole("button", { name: "Sweep now" }).click();
    const result = admin.locator("#action-result");
    await result.getByRole("heading", { name: "Sweep result" }).waitFor({ timeout: 60000 });
    const outcomes = await result.locator("table.outcomes th").allTextContents();
    check(outcomes.length === 8 && outcomes.includes("reclaim-failed"), `outcomes: ${outcomes}`);
    await until("readiness UP", async () => (await admin.locator("#health-ready").textContent()) === "UP", 15000);
    await until("a sweep counted in /metrics", async () => {
      const row = admin.locator("table.figures tr", { hasText: "agentbox_reaper_sweeps_total" });
      return Number(await row.locator("td").textContent()) >= 1;
    }, 15000);
    await admin.screenshot({ path: `${shots}/operations.png`, fullPage: true });
    await admin.context().close();
  });

  check(pageErrors.length === 0, `script errors or CSP violations: ${pageErrors.join(" | ")}`);
  checks.push({ name: "CO-08 no script error and no CSP violation on any page" });
  emit({ checks, eventsRequests: proxy.state.eventsRequests });
} catch (error) {
  process.exitCode = 1;
  emit({ error: String(error?.stack ?? error), checks, pageErrors });
} finally {
  for (const runId of made.runs) {
    const r = await api(runPath(runId)).catch(() => null);
    if (r?.body && !["completed", "failed", "aborted"].includes(r.body.status)) await api(`${runPath(runId)}/cancel`, { method: "POST" }).catch(() => {});
    const key = r?.body?.sandboxKey;
    if (key) made.sandboxes.add(key);
  }
  for (const key of made.sandboxes) await api(`/api/v1/sandboxes/${encodeURIComponent(key)}`, { method: "DELETE" }).catch(() => {});
  await browser?.close().catch(() => {});
  proxy?.close();
}
