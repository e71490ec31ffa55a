// Answers approvals from the operator console in Debian's Chromium through playwright-core, against
// a running service where two runs (approveRun, denyRun) each wait on one pending approval whose
// arguments hold "<b>". Options (one JSON argument): baseUrl, token, screenshots, chromium,
// approveRun, denyRun. Prints {"checks":[…passed…]} and exits 0, or {"error","checks"} and exits 1
// with a screenshot of the page that failed. It starts no run and no sandbox: the caller made them
// and removes them.
import { mkdirSync } from "node:fs";
import { chromium } from "playwright-core";
import { emit, options } from "./script-io.mjs";

const opts = options(["baseUrl", "token", "screenshots", "approveRun", "denyRun"]);
const base = opts.baseUrl.replace(/\/$/, "");
const shots = opts.screenshots;
mkdirSync(shots, { recursive: true });
const checks = [];

async function api(path, { method = "GET", body } = {}) {
  const headers = { Authorization: `Bearer ${opts.token}` };
  if (body) headers["Content-Type"] = "application/json";
  const res = await fetch(base + path, { method, headers, body: body && JSON.stringify(body) });
  const text = (await res.text()).trim();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
const runPath = (id) => `/api/v1/runs/${encodeURIComponent(id)}`;

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
    await new Promise((r) => setTimeout(r, 200));
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
async function newPage(browser, pageErrors) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.on("pageerror", (e) => pageErrors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" && /Content Security Policy|Uncaught/i.test(m.text())) pageErrors.push(m.text());
  });
  return page;
}
async function signIn(page) {
  await page.goto(`${base}/console/`);
  await page.getByLabel("Bearer token").fill(opts.token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.locator("#nav").waitFor({ state: "visible" });
}
const cardOf = (scope, runId, interruptId) =>
  scope.locator(`article.approval[data-run-id="${runId}"][data-interrupt-id="${interruptId}"]`);

/** The run's one pending interrupt, as the API lists it. */
async function pending(runId) {
  const r = await api(runPath(runId));
  check(r.status === 200 && r.body.interrupts?.length === 1, `${runId}: ${JSON.stringify(r.body)}`);
  return r.body.interrupts[0];
}

/** The run's approval.decided chunk from its stored log, once the run has ended. */
async function decided(runId) {
  await until(`${runId} to complete`, async () => (await api(runPath(runId))).body.status === "completed", 120000);
  const log = (await api(`${runPath(runId)}/log`)).body;
  const c = log.map((e) => e.chunk).find((c) => c.type === "CUSTOM" && c.name === "approval.decided");
  check(c, `no approval.decided in ${runId}'s log: ${JSON.stringify(log.map((e) => e.chunk.type))}`);
  return c.value;
}

/** The card shows the tool, the expiry and the arguments as the API lists them, as text. */
async function checkCard(card, ask, marker) {
  check((await card.locator(".tool").textContent()) === ask.tool, `tool: ${await card.locator(".tool").textContent()}`);
  const args = await card.locator("pre.approval-args").textContent();
  check(args === JSON.stringify(ask.arguments, null, 2), `arguments shown: ${args}; API: ${JSON.stringify(ask.arguments)}`);
  check(args.includes(marker), `the arguments lack ${marker}: ${args}`);
  check((await card.locator("b").count()) === 0, "the arguments' <b> became markup");
  check((await card.locator("time.expiry").getAttribute("datetime")) === ask.expiresAt, "expiry time");
  check((await card.locator("time.expiry").textContent()).startsWith("in "), "expiry not shown as still ahead");
}

const pageErrors = [];
let browser;
try {
  browser = await chromium.launch({
    executablePath: opts.chromium ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const page = await newPage(browser, pageErrors);
  const approveAsk = await pending(opts.approveRun);
  const denyAsk = await pending(opts.denyRun);
  const approveCard = cardOf(page, opts.approveRun, approveAsk.id);
  let second;

  await step("CO-10 the approvals view lists both runs' approvals, arguments as text", page, async () => {
    await signIn(page);
    await page.locator('#nav a[href="#/approvals"]').click();
    await approveCard.waitFor({ timeout: 30000 });
    const denyCard = cardOf(page, opts.denyRun, denyAsk.id);
    await denyCard.waitFor({ timeout: 30000 });
    await checkCard(approveCard, approveAsk, "<b>approved</b>");
    await checkCard(denyCard, denyAsk, "<b>denied</b>");
    const link = approveCard.locator("a.run-link");
    check((await link.textContent()) === opts.approveRun, "the card does not name its run");
    check((await link.getAttribute("href")) === `#/runs/${encodeURIComponent(opts.approveRun)}`, "run link");
    await page.screenshot({ path: `${shots}/approvals.png`, fullPage: true });
  });

  await step("CO-10 Approve answers the approval and the run completes", page, async () => {
    // A second window shows the same approval on the run's page, then stops hearing from the
    // server (its reads are held, its answers pass): it will answer after this one did.
    second = { page: await newPage(browser, pageErrors), held: [] };
    await signIn(second.page);
    await second.page.goto(`${base}/console/#/runs/${encodeURIComponent(opts.approveRun)}`);
    await cardOf(second.page.locator("#run-approvals"), opts.approveRun, approveAsk.id).waitFor({ timeout: 30000 });
    await second.page.route("**/api/v1/**", (route) =>
      route.request().method() === "GET" ? second.held.push(route) : route.continue(),
    );

    await approveCard.getByRole("button", { name: "Approve" }).click();
    const note = page.locator('#approval-notices [data-outcome="approved"]');
    await note.waitFor({ timeout: 15000 });
    check((await note.textContent()).includes(opts.approveRun), `notice: ${await note.textContent()}`);
    await until("the approved card to go", async () => (await approveCard.count()) === 0, 5000);
    const value = await decided(opts.approveRun);
    check(value.approved === true && value.by === "answer" && value.interruptId === approveAsk.id, `approval.decided: ${JSON.stringify(value)}`);
  });

  await step("CO-10 a second window's late Deny is the API's 409, shown as answered elsewhere", second.page, async () => {
    const p = second.page;
    const stale = cardOf(p.locator("#run-approvals"), opts.approveRun, approveAsk.id);
    check(await stale.isVisible(), "the second window no longer shows the approval");
    await stale.getByRole("button", { name: "Deny" }).click();
    const note = p.locator('#approval-notices [data-outcome="conflict"]');
    await note.waitFor({ timeout: 15000 });
    const expected = await api(`${runPath(opts.approveRun)}/interrupts/${encodeURIComponent(approveAsk.id)}`, {
      method: "POST",
      body: { status: "resolved", payload: { approved: false } },
    });
    check(expected.status === 409, `the API answers a late Deny with ${expected.status}`);
    const text = await note.textContent();
    for (const part of ["Already answered elsewhere", "resolved", expected.body.title, expected.body.detail, "409", "interrupt-answered"]) {
      check(text.includes(part), `the notice lacks "${part}": ${text}`);
    }
    check((await note.getAttribute("role")) === "alert", "the 409 is not announced");
    check((await stale.count()) === 0, "the refused card is still offered");
    await p.unroute("**/api/v1/**");
    for (const route of second.held.splice(0)) await route.continue().catch(() => {});
    await until("the second window to read the completed run", async () => (await p.locator(".record").getAttribute("data-status")) === "completed", 15000);
    check(await note.isVisible(), "the 409 notice went with the refresh");
    await p.screenshot({ path: `${shots}/approval-conflict.png`, fullPage: true });
    await p.context().close();
  });

  await step("CO-11 Deny on the run's page refuses the call and the run records it", page, async () => {
    await page.goto(`${base}/console/#/runs/${encodeURIComponent(opts.denyRun)}`);
    const box = page.locator("#run-approvals");
    const card = cardOf(box, opts.denyRun, denyAsk.id);
    await card.waitFor({ timeout: 30000 });
    await checkCard(card, denyAsk, "<b>denied</b>");
    check((await card.locator("a.run-link").count()) === 0, "the run's own page links its approval to itself");
    await page.screenshot({ path: `${shots}/run-approval.png`, fullPage: true });
    await card.getByRole("button", { name: "Deny" }).click();
    await box.locator('[data-outcome="denied"]').waitFor({ timeout: 15000 });
    const value = await decided(opts.denyRun);
    check(value.approved === false && value.by === "answer" && value.reason === "denied by a person", `approval.decided: ${JSON.stringify(value)}`);
    await until("the page to read the completed run", async () => (await page.locator(".record").getAttribute("data-status")) === "completed", 15000);
    check((await box.locator("article.approval").count()) === 0, "an approval is still offered on the ended run");
    await page.locator('#nav a[href="#/approvals"]').click();
    await page.locator('#approvals-state[data-loaded="true"]').waitFor({ timeout: 15000 });
    for (const run of [opts.approveRun, opts.denyRun]) {
      check((await page.locator(`article.approval[data-run-id="${run}"]`).count()) === 0, `${run} still listed as pending`);
    }
  });

  check(pageErrors.length === 0, `script errors or CSP violations: ${pageErrors.join(" | ")}`);
  checks.push({ name: "CO-08 no script error and no CSP violation on any page" });
  emit({ checks });
} catch (error) {
  process.exitCode = 1;
  emit({ error: String(error?.stack ?? error), checks, pageErrors });
} finally {
  await browser?.close().catch(() => {});
}
