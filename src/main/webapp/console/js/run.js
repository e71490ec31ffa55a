// One run: its record (polled every 2 s), the approvals it waits for, its live transcript read
// from the events stream, the raw events beside it, and Cancel.
import { call, json, runPath } from "./api.js";
import { ApprovalsPanel } from "./approvals.js";
import { clear, confirmDialog, facts, h, problemBox, statusBadge, TERMINAL, timeCell } from "./dom.js";
import { follow, sleep } from "./sse.js";
import { Transcript } from "./transcript.js";

const POLL_MS = 2000;

export function mountRun(main, runId) {
  const controller = new AbortController();
  const signal = controller.signal;
  const head = h("div", { class: "record" });
  const errors = h("div", { class: "errors" });
  const cancel = h("button", { type: "button", class: "danger", id: "cancel-run", hidden: true }, "Cancel run");
  const rawToggle = h("button", { type: "button", id: "toggle-raw", "aria-pressed": "false", "aria-controls": "raw-events" }, "Raw events");
  const streamState = h("span", { class: "stream-state muted", role: "status" }, "connecting…");
  // role=log: a screen reader announces new lines; tabindex: the scrolled box is reachable by keyboard.
  const transcriptRoot = h("div", { class: "transcript", id: "transcript", role: "log", tabindex: 0, "aria-label": "Transcript" });
  const rawBody = h("tbody");
  const raw = h(
    "section",
    { id: "raw-events", class: "raw", hidden: true, "aria-label": "Raw events" },
    h("table", { class: "list raw-table" }, h("thead", {}, h("tr", {}, ["id", "event", "data"].map((c) => h("th", { scope: "col" }, c)))), rawBody),
  );
  const approvals = new ApprovalsPanel({ showRun: false, signal, onAnswered: () => poll() });
  const approvalsBox = h(
    "section",
    { class: "run-approvals", id: "run-approvals", hidden: true, "aria-labelledby": "run-approvals-title" },
    h("h2", { id: "run-approvals-title" }, "Approvals"),
    approvals.root,
  );
  main.append(
    h("p", { class: "crumbs" }, h("a", { href: "#/runs" }, "Runs"), " / "),
    h("h1", { class: "mono break" }, runId),
    errors,
    head,
    approvalsBox,
    h("div", { class: "toolbar" }, cancel, rawToggle, streamState),
    transcriptRoot,
    raw,
  );

  const transcript = new Transcript(transcriptRoot);
  let record = null;

  function showRecord(r) {
    record = r;
    const flags = [];
    if (r.detachedSince) flags.push(h("span", {}, "detached since ", timeCell(r.detachedSince, " ago")));
    if (r.cancelRequested) flags.push(h("span", {}, "cancel requested"));
    clear(head).append(
      facts([
        ["Status", statusBadge(r.status)],
        ["Thread", r.threadId],
        ["Harness", r.harness],
        ["Started", timeCell(r.startedAt, " ago")],
        ["Finished", r.finishedAt ? timeCell(r.finishedAt, " ago") : null],
        ["Driver epoch", r.driverEpoch],
        ["Sandbox", r.sandboxKey ? h("a", { href: `#/sandboxes/${encodeURIComponent(r.sandboxKey)}`, class: "mono" }, r.sandboxKey) : null],
        ["Flags", flags.length ? flags : null],
        ["Error", r.error ? `${r.error.code ? r.error.code + ": " : ""}${r.error.message ?? ""}` : null],
      ]),
    );
    head.dataset.status = r.status;
    cancel.hidden = TERMINAL.has(r.status);
    // The record lists the run's pending interrupts (absent when none): answered here, or
    // elsewhere, they leave with the next poll; notices of answers given here stay.
    const pending = approvals.update((r.interrupts ?? []).map((interrupt) => ({ runId, interrupt })));
    approvalsBox.hidden = pending === 0 && approvals.notices.childElementCount === 0;
  }

  // One polling loop at a time: the stream's end and a cancel both restart it.
  let polling = false;
  async function poll() {
    if (polling) return;
    polling = true;
    try {
      await pollLoop();
    } finally {
      polling = false;
    }
  }

  async function pollLoop() {
    while (!signal.aborted) {
      try {
        showRecord(await json(runPath(runId), { signal }));
        clear(errors);
        if (TERMINAL.has(record.status)) return;
      } catch (error) {
        if (signal.aborted) return;
        clear(errors).append(problemBox(error));
        if (error.status === 404) return;
      }
      await sleep(POLL_MS, signal);
    }
  }

  cancel.addEventListener("click", async () => {
    const yes = await confirmDialog(
      `Cancel run ${runId}? The agent is stopped and its sandbox destroyed.`,
      "Cancel run",
      "Keep running",
    );
    if (!yes) return;
    cancel.disabled = true;
    try {
      const res = await call(`${runPath(runId)}/cancel`, { method: "POST", signal });
      const text = (await res.text()).trim();
      if (text) showRecord(JSON.parse(text));
      poll();
    } catch (error) {
      clear(errors).append(problemBox(error));
    } finally {
      cancel.disabled = false;
    }
  });

  rawToggle.addEventListener("click", () => {
    const show = raw.hidden;
    raw.hidden = !show;
    rawToggle.setAttribute("aria-pressed", String(show));
  });

  function onEvent(ev) {
    let chunk = null;
    try {
      chunk = JSON.parse(ev.data);
    } catch {
      // shown raw only
    }
    rawBody.append(
      h("tr", {}, h("td", { class: "mono", "data-label": "id" }, ev.id), h("td", { "data-label": "event" }, ev.event), h("td", { "data-label": "data" }, h("code", { class: "json" }, ev.data))),
    );
    const near = transcriptRoot.scrollHeight - transcriptRoot.scrollTop - transcriptRoot.clientHeight < 80;
    if (chunk) transcript.add(chunk);
    if (near) transcriptRoot.scrollTop = transcriptRoot.scrollHeight;
    transcriptRoot.dataset.lastEventId = ev.id;
    if (ev.event === "RUN_FINISHED" || ev.event === "RUN_ERROR") poll();
  }

  function onState(s, detail) {
    transcriptRoot.dataset.stream = s;
    streamState.textContent =
      s === "open" ? "live" : s === "resumed" ? `live (resumed after ${detail})` : s === "reconnecting" ? "reconnecting…" : s === "ended" ? "stream ended" : s;
    if (s === "failed") errors.append(problemBox(detail));
  }

  poll();
  follow((headers, sig) => call(`${runPath(runId)}/events`, { headers, signal: sig }), { onEvent, onState, signal });
  return () => controller.abort();
}
