// The runs list: the tenant's runs, newest first, polled every 2 s, filtered by status and
// thread. Where the API pages its answer (a Link rel="next" header) a "Load more" button
// follows the link; without one the first page is the whole list.
import { enc, listPage } from "./api.js";
import { age, busy, clear, h, problemBox, statusBadge } from "./dom.js";

const STATUSES = ["running", "interrupted", "completed", "failed", "aborted"];
const POLL_MS = 2000;

export function mountRuns(main) {
  const status = h(
    "select",
    { id: "filter-status", name: "status" },
    h("option", { value: "" }, "any"),
    STATUSES.map((s) => h("option", { value: s }, s)),
  );
  const thread = h("input", { id: "filter-thread", name: "threadId", type: "search", autocomplete: "off" });
  const form = h(
    "form",
    { class: "filters", role: "search", "aria-label": "Filter runs" },
    h("div", { class: "field" }, h("label", { for: "filter-status" }, "Status"), status),
    h("div", { class: "field" }, h("label", { for: "filter-thread" }, "Thread"), thread),
  );
  const errors = h("div", { class: "errors" });
  const body = h("tbody");
  const table = h(
    "table",
    { class: "runs list", "aria-label": "Runs" },
    h(
      "thead",
      {},
      h("tr", {}, ["Run", "Status", "Thread", "Harness", "Age", "Epoch", "Flags"].map((c) => h("th", { scope: "col" }, c))),
    ),
    body,
  );
  const empty = h("p", { class: "muted empty", hidden: true }, "No runs.");
  const more = h("button", { type: "button", class: "load-more", hidden: true }, "Load more");
  main.append(h("h1", {}, "Runs"), form, errors, table, empty, more);

  let first = [];
  let extra = [];
  let next = null;
  let timer = null;
  let stopped = false;
  let generation = 0;

  const query = () => {
    const q = new URLSearchParams();
    if (thread.value.trim()) q.set("threadId", thread.value.trim());
    if (status.value) q.set("status", status.value);
    const s = q.toString();
    return "/api/v1/runs" + (s ? `?${s}` : "");
  };

  async function refresh() {
    const mine = generation;
    try {
      const p = await listPage(query());
      if (mine !== generation || stopped) return;
      first = p.items;
      // Pages loaded by hand stay; a fresh first page decides where the next one starts only
      // while nothing more was loaded.
      if (!extra.length) next = p.next;
      clear(errors);
      render();
    } catch (error) {
      if (mine !== generation || stopped) return;
      clear(errors).append(problemBox(error));
    }
  }

  function render() {
    const ids = new Set(first.map((r) => r.runId));
    const rows = first.concat(extra.filter((r) => !ids.has(r.runId)));
    const existing = new Map([...body.rows].map((tr) => [tr.dataset.runId, tr]));
    const sameOrder =
      existing.size === rows.length && rows.every((r, i) => body.rows[i]?.dataset.runId === r.runId);
    if (sameOrder) {
      rows.forEach((r) => fill(existing.get(r.runId), r));
    } else {
      // Rows are rebuilt only when the set or order changes, so focus on a link survives polls.
      body.replaceChildren(...rows.map((r) => fill(existing.get(r.runId) ?? newRow(r), r)));
    }
    empty.hidden = rows.length > 0;
    more.hidden = !next;
  }

  async function loadMore() {
    if (!next) return;
    await busy(more, errors, async () => {
      const p = await listPage(next);
      extra = extra.concat(p.items);
      next = p.next;
      render();
    });
  }

  function restart() {
    generation++;
    extra = [];
    next = null;
    refresh();
  }

  let typing = null;
  status.addEventListener("change", restart);
  thread.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(restart, 300);
  });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    restart();
  });
  more.addEventListener("click", loadMore);

  const loop = async () => {
    await refresh();
    if (!stopped) timer = setTimeout(loop, POLL_MS);
  };
  loop();
  return () => {
    stopped = true;
    clearTimeout(timer);
    clearTimeout(typing);
  };
}

function newRow(run) {
  const tr = h("tr", {});
  tr.dataset.runId = run.runId;
  const labels = ["Run", "Status", "Thread", "Harness", "Age", "Epoch", "Flags"];
  for (const label of labels) tr.append(h("td", { "data-label": label }));
  tr.cells[0].append(h("a", { href: `#/runs/${enc(run.runId)}`, class: "mono" }, run.runId));
  return tr;
}

function fill(tr, run) {
  const c = tr.cells;
  const badge = c[1].firstChild;
  if (badge?.textContent !== run.status) c[1].replaceChildren(statusBadge(run.status));
  c[2].textContent = run.threadId ?? "";
  c[3].textContent = run.harness ?? "";
  c[4].textContent = age(run.startedAt);
  c[4].title = run.startedAt ?? "";
  c[5].textContent = run.driverEpoch ?? "—";
  const flags = [];
  if (run.detachedSince) flags.push(`detached ${age(run.detachedSince)}`);
  if (run.cancelRequested) flags.push("cancel requested");
  if (run.error?.code) flags.push(run.error.code);
  c[6].textContent = flags.join(" · ");
  tr.dataset.status = run.status;
  return tr;
}
