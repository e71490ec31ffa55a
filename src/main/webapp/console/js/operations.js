// Operations, for the admin tenant: the reaper's last sweep and next one, Sweep now and Prune
// journals, readiness and liveness, and a few figures from /metrics. Any other tenant that opens
// it sees the API's own 403 problem; the navigation does not offer it to them.
import { call, json, session } from "./api.js";
import { busy, clear, confirmDialog, facts, h, problemBox, timeCell } from "./dom.js";
import { figures } from "./metrics.js";

const POLL_MS = 3000;

export function mountOperations(main) {
  const controller = new AbortController();
  const signal = controller.signal;
  main.append(h("h1", {}, "Operations"));
  const gate = h("div", { class: "errors" });
  main.append(gate);
  const reaper = h("section", { "aria-labelledby": "reaper-title" });
  const result = h("section", { id: "action-result", "aria-live": "polite" });
  const health = h("section", { "aria-labelledby": "health-title" });
  const metrics = h("section", { "aria-labelledby": "metrics-title" });
  const sweep = h("button", { type: "button", id: "sweep-now" }, "Sweep now");
  const prune = h("button", { type: "button", id: "prune-journals" }, "Prune journals");

  let timer = null;
  async function refresh() {
    try {
      const r = await json("/api/v1/admin/reaper", { signal });
      showReaper(reaper, r);
    } catch (error) {
      if (signal.aborted) return;
      if (error.status === 403) {
        // Forced here by a tenant that is not the admin: show the API's refusal and nothing else.
        session.admin = false;
        clear(main).append(h("h1", {}, "Operations"), problemBox(error));
        controller.abort();
        return;
      }
      clear(reaper).append(h("h2", { id: "reaper-title" }, "Reaper"), problemBox(error));
    }
    showHealth(health, signal);
    showMetrics(metrics, signal);
  }

  main.append(h("div", { class: "toolbar" }, sweep, prune), result, reaper, health, metrics);

  sweep.addEventListener("click", async () => {
    clear(result).append(h("p", { class: "muted" }, "Sweeping…"));
    await busy(sweep, result, async () => {
      const r = await json("/api/v1/admin/reaper/sweep", { method: "POST", signal });
      clear(result).append(h("h2", {}, "Sweep result"), sweepView(r));
      refresh();
    });
  });

  prune.addEventListener("click", async () => {
    if (!(await confirmDialog("Prune the journals of terminal runs? They cannot be replayed from the sandbox afterwards.", "Prune", "Keep"))) return;
    await busy(prune, result, async () => {
      const r = await json("/api/v1/admin/journals/prune", { method: "POST", signal });
      clear(result).append(
        h("h2", {}, "Prune result"),
        h("p", { id: "prune-summary" }, `${r.deleted.length} deleted, ${r.kept.length} kept`),
        list(r.deleted.map((id) => `deleted ${id}`)),
        list(r.kept.map((k) => `kept ${k.runId}: ${k.reason}`)),
      );
    });
  });

  const loop = async () => {
    await refresh();
    if (!signal.aborted) timer = setTimeout(loop, POLL_MS);
  };
  loop();
  return () => {
    controller.abort();
    clearTimeout(timer);
  };
}

function showReaper(root, r) {
  clear(root).append(
    h("h2", { id: "reaper-title" }, "Reaper"),
    facts([
      ["Enabled", String(r.enabled)],
      ["Healthy", String(r.healthy)],
      ["Interval", `${r.intervalMs} ms`],
      ["Next sweep due", r.nextDueAt ? h("span", {}, "in ", timeCell(r.nextDueAt)) : null],
      ["Last completed", r.lastCompletedAt ? timeCell(r.lastCompletedAt, " ago") : null],
    ]),
    h("h3", {}, "Last sweep"),
    r.last ? sweepView(r.last) : h("p", { class: "muted" }, "No sweep yet."),
  );
}

export function sweepView(s) {
  const outcomes = Object.entries(s.outcomes ?? {});
  return h(
    "div",
    { class: "sweep" },
    facts([
      ["Started", s.startedAt ? timeCell(s.startedAt, " ago") : null],
      ["Duration", s.durationMs !== undefined ? `${s.durationMs} ms` : null],
      ["Considered", s.considered],
      ["Probed", s.probed],
      ["Error", s.error],
    ]),
    h(
      "table",
      { class: "outcomes", "aria-label": "Outcomes" },
      h("tbody", {}, outcomes.map(([k, v]) => h("tr", { class: v ? "nonzero" : "" }, h("th", { scope: "row" }, k), h("td", {}, String(v))))),
    ),
    s.runs?.length
      ? h(
          "table",
          { class: "list sweep-runs", "aria-label": "Runs in this sweep" },
          h("thead", {}, h("tr", {}, ["Run", "Outcome", "Status", "Exit", "Reclaim", "Error"].map((c) => h("th", { scope: "col" }, c)))),
          h(
            "tbody",
            {},
            s.runs.map((r) =>
              h(
                "tr",
                {},
                [r.runId, r.outcome + (r.terminalizedAnyway ? " (terminalized anyway)" : ""), r.status ?? "", r.exitCode ?? "", r.reclaim ?? "", r.error ?? ""].map((v, i) =>
                  h("td", { "data-label": ["Run", "Outcome", "Status", "Exit", "Reclaim", "Error"][i] }, String(v)),
                ),
              ),
            ),
          ),
        )
      : h("p", { class: "muted" }, "No runs in this sweep."),
    s.unattended?.length ? list(s.unattended.map((u) => `unattended ${u.runId}: ${u.action}`)) : null,
    s.orphans && (s.orphans.destroyed?.length || s.orphans.failed?.length)
      ? list([...s.orphans.destroyed.map((o) => `orphan destroyed: ${JSON.stringify(o)}`), ...s.orphans.failed.map((o) => `orphan failed: ${JSON.stringify(o)}`)])
      : null,
  );
}

async function showHealth(root, signal) {
  const parts = [h("h2", { id: "health-title" }, "Health")];
  for (const name of ["ready", "live"]) {
    try {
      // A DOWN answer is 503 with the same document: read it either way.
      const res = await fetch(`/health/${name}`, { signal, cache: "no-store" });
      const doc = JSON.parse((await res.text()).trim());
      parts.push(
        h("h3", {}, `${name === "ready" ? "Readiness" : "Liveness"}: `, h("span", { class: `badge health-${doc.status}`, id: `health-${name}` }, doc.status)),
        h(
          "ul",
          { class: "checks" },
          (doc.checks ?? []).map((c) =>
            h("li", {}, h("span", { class: `badge health-${c.status}` }, c.status), " ", h("strong", {}, c.name), c.data ? h("span", { class: "muted" }, " ", Object.entries(c.data).map(([k, v]) => `${k}=${v}`).join(", ")) : null),
          ),
        ),
      );
    } catch (error) {
      if (signal.aborted) return;
      parts.push(problemBox(error));
    }
  }
  clear(root).append(...parts);
}

async function showMetrics(root, signal) {
  try {
    const text = await (await fetch("/metrics", { signal, cache: "no-store" })).text();
    const running = await json("/api/v1/runs?status=running", { signal });
    const rows = figures(text);
    rows.unshift(["Running runs (this tenant, /api/v1/runs?status=running)", running.length]);
    clear(root).append(
      h("h2", { id: "metrics-title" }, "Figures"),
      h("table", { class: "figures", "aria-label": "Figures" }, h("tbody", {}, rows.map(([k, v]) => h("tr", {}, h("th", { scope: "row" }, k), h("td", {}, String(v)))))),
    );
  } catch (error) {
    if (!signal.aborted) clear(root).append(h("h2", { id: "metrics-title" }, "Figures"), problemBox(error));
  }
}

function list(items) {
  return items.length ? h("ul", {}, items.map((i) => h("li", {}, i))) : null;
}
