// Pending approvals: the tool calls of the tenant's runs that an `ask` rule holds for a person.
// The API has no tenant-wide list of interrupts, so the view reads what it has: the runs that can
// still wait (GET /runs?status=running and ?status=interrupted, every page) and each one's
// record, whose `interrupts` lists the pending ones. An answer is
// POST /runs/{runId}/interrupts/{id}. Tool arguments are agent output: shown as JSON text in a
// <pre>, never as markup.
import { call, enc, json, listPage, runPath } from "./api.js";
import { age, clear, facts, h, problemBox } from "./dom.js";
import { sleep } from "./sse.js";

const POLL_MS = 3000;
/** Pages of each status list followed per refresh (200 runs a page): a bound, not a cursor. */
const MAX_PAGES = 5;
/** Records fetched at once: a tenant with many running runs must not flood the server. */
const PARALLEL = 4;
const APPROVAL = "approval";

/** Every pending interrupt of the tenant's runs that are not terminal: [{runId, interrupt}]. */
export async function pendingInterrupts(signal) {
  const runIds = [];
  for (const status of ["running", "interrupted"]) {
    let path = `/api/v1/runs?status=${status}`;
    for (let page = 0; path && page < MAX_PAGES && !signal?.aborted; page++) {
      const p = await listPage(path);
      runIds.push(...p.items.map((r) => r.runId));
      path = p.next;
    }
  }
  const found = [];
  let next = 0;
  const worker = async () => {
    while (next < runIds.length && !signal?.aborted) {
      const runId = runIds[next++];
      try {
        const record = await json(runPath(runId), { signal });
        for (const interrupt of record.interrupts ?? []) found.push({ runId, interrupt });
      } catch (error) {
        // A run that ended and was pruned between the list and its record has nothing pending.
        if (error.status !== 404) throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return found.sort((a, b) => Date.parse(a.interrupt.expiresAt) - Date.parse(b.interrupt.expiresAt));
}

/** Answers an approval: resolved with {approved}. Throws the API's Problem (404, 409…). */
export function answerApproval(runId, interruptId, approved, signal) {
  return call(`${runPath(runId)}/interrupts/${enc(interruptId)}`, {
    method: "POST",
    body: { status: "resolved", payload: { approved } },
    signal,
  });
}

/**
 * Cards of pending interrupts with Approve and Deny, and the notices their answers leave.
 *
 * Invariants: a card is keyed by run and interrupt id and built once (an interrupt's tool and
 * arguments never change), so a refresh does not move a button under the pointer; an interrupt
 * answered from this panel is never shown again, even by a refresh that read the run before the
 * answer landed; a notice (above all a 409: answered elsewhere) stays after its card has gone.
 */
export class ApprovalsPanel {
  /**
   * @param {{showRun?: boolean, onAnswered?: () => void, signal?: AbortSignal}} options showRun
   *     names the run on each card (the tenant-wide view); onAnswered asks for a refresh.
   */
  constructor({ showRun = true, onAnswered = () => {}, signal } = {}) {
    this.showRun = showRun;
    this.onAnswered = onAnswered;
    this.signal = signal;
    this.cards = new Map();
    this.answered = new Set();
    this.notices = h("div", { class: "approval-notices", id: "approval-notices" });
    this.list = h("div", { class: "approvals", role: "list", "aria-label": "Pending approvals" });
    this.root = h("div", { class: "approvals-panel" }, this.notices, this.list);
  }

  /** Shows exactly these pending interrupts ([{runId, interrupt}]), in this order. */
  update(items) {
    const wanted = items.filter((x) => !this.answered.has(key(x.runId, x.interrupt.id)));
    const keep = new Set(wanted.map((x) => key(x.runId, x.interrupt.id)));
    for (const [k, card] of this.cards) {
      if (!keep.has(k)) {
        card.remove();
        this.cards.delete(k);
      }
    }
    for (const x of wanted) {
      const k = key(x.runId, x.interrupt.id);
      let card = this.cards.get(k);
      if (!card) {
        card = this.card(x.runId, x.interrupt);
        this.cards.set(k, card);
      }
      refreshExpiry(card, x.interrupt.expiresAt);
      this.list.append(card); // moves an existing card into order; focus stays on it
    }
    this.root.dataset.count = String(wanted.length);
    return wanted.length;
  }

  card(runId, interrupt) {
    const id = `approval-${cardSeq++}`;
    const errors = h("div", { class: "errors" });
    const expiry = h("time", { datetime: interrupt.expiresAt, title: interrupt.expiresAt, class: "expiry" });
    const isApproval = interrupt.reason === APPROVAL;
    const approve = h("button", { type: "button", class: "approve", "aria-describedby": id }, "Approve");
    const deny = h("button", { type: "button", class: "danger deny", "aria-describedby": id }, "Deny");
    const card = h(
      "article",
      { class: "approval", role: "listitem", "aria-labelledby": id },
      h("h3", { id }, h("span", { class: "tool mono" }, interrupt.tool ?? "(no tool)"), h("span", { class: "muted" }, ` · ${interrupt.reason ?? ""}`)),
      facts([
        ["Run", this.showRun ? h("a", { href: `#/runs/${enc(runId)}`, class: "mono run-link" }, runId) : null],
        ["Tool call", interrupt.toolCallId ? h("span", { class: "mono" }, interrupt.toolCallId) : null],
        ["Expires", expiry],
      ]),
      h("div", { class: "label" }, "Arguments"),
      h("pre", { class: "args approval-args" }, prettyJson(interrupt.arguments)),
      errors,
      isApproval
        ? h("div", { class: "actions" }, deny, approve)
        : h("p", { class: "muted" }, "Answered by the client that runs this tool, not here."),
    );
    card.dataset.runId = runId;
    card.dataset.interruptId = interrupt.id;
    const answer = async (approved) => {
      approve.disabled = deny.disabled = true;
      clear(errors);
      try {
        await answerApproval(runId, interrupt.id, approved, this.signal);
        this.settle(runId, interrupt, approved ? "approved" : "denied");
      } catch (error) {
        if (error.status === 409 || error.status === 404) {
          this.settle(runId, interrupt, error.status === 409 ? "conflict" : "gone", error);
        } else {
          errors.append(problemBox(error));
          approve.disabled = deny.disabled = false;
        }
      }
    };
    approve.addEventListener("click", () => answer(true));
    deny.addEventListener("click", () => answer(false));
    return card;
  }

  /** The interrupt is no longer pending here: its card goes, a notice says why. */
  settle(runId, interrupt, outcome, problem) {
    const k = key(runId, interrupt.id);
    this.answered.add(k);
    this.cards.get(k)?.remove();
    this.cards.delete(k);
    this.root.dataset.count = String(this.cards.size);
    this.notices.prepend(notice(runId, interrupt, outcome, problem));
    while (this.notices.childElementCount > 5) this.notices.lastElementChild.remove();
    this.onAnswered();
  }
}

let cardSeq = 0;

const key = (runId, id) => `${runId}\n${id}`;

function refreshExpiry(card, iso) {
  const t = card.querySelector("time.expiry");
  const left = Date.parse(iso) - Date.now();
  t.textContent = left > 0 ? `in ${age(iso)}` : `${age(iso)} ago (expired; the call is refused)`;
}

function notice(runId, interrupt, outcome, problem) {
  const what = `${interrupt.tool ?? "the call"} on run ${runId}`;
  if (outcome === "approved" || outcome === "denied") {
    return h(
      "p",
      { class: `notice notice-${outcome}`, role: "status", "data-outcome": outcome },
      outcome === "approved" ? `Approved ${what}: the call runs.` : `Denied ${what}: the agent is told it was refused.`,
    );
  }
  const status = problem?.problem?.interruptStatus;
  return h(
    "div",
    { class: `notice notice-${outcome}`, role: "alert", "data-outcome": outcome },
    h(
      "strong",
      {},
      outcome === "conflict"
        ? `Already answered elsewhere: ${what} is ${status ?? "no longer pending"}. Your answer was not applied.`
        : `Gone: ${what} no longer exists. Your answer was not applied.`,
    ),
    problemBox(problem),
  );
}

/** Arguments as indented JSON text (a non-JSON value as its string). */
export function prettyJson(value) {
  if (value === undefined) return "";
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

/** The #/approvals view: every pending approval of the tenant's runs, refreshed every 3 s. */
export function mountApprovals(main) {
  const controller = new AbortController();
  const signal = controller.signal;
  const errors = h("div", { class: "errors" });
  const state = h("p", { class: "muted", role: "status", id: "approvals-state" }, "Loading…");
  let wake = null;
  const panel = new ApprovalsPanel({ signal, onAnswered: () => wake?.abort() });
  main.append(
    h("h1", {}, "Approvals"),
    h("p", { class: "muted" }, "Tool calls of your runs that wait for a person (an approval rule says ask). The arguments are the agent's, shown as text."),
    errors,
    state,
    panel.root,
  );

  (async () => {
    while (!signal.aborted) {
      try {
        const n = panel.update(await pendingInterrupts(signal));
        if (signal.aborted) return;
        clear(errors);
        state.textContent = n ? `${n} pending` : "No approvals pending.";
        state.dataset.loaded = "true";
      } catch (error) {
        if (signal.aborted) return;
        clear(errors).append(problemBox(error));
      }
      // An answer wakes the loop at once, so the list shows what the server now says.
      wake = new AbortController();
      await sleep(POLL_MS, AbortSignal.any([signal, wake.signal]));
    }
  })();
  return () => controller.abort();
}
