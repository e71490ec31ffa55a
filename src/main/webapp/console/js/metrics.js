// A few figures from /metrics (Prometheus text format). The names are the ones the server emits
// (docs/operations.md, "Metrics"); a sample's labels are summed over, so one figure per name.

const SHOWN = [
  ["agentbox_runs_driving", "Runs this server drives"],
  ["agentbox_reaper_sweeps_total", "Reaper sweeps"],
  ["agentbox_reaper_reclaim_failed_total", "Reclaim failures"],
  ["agentbox_reaper_orphans_destroyed_total", "Orphans destroyed"],
  ["agentbox_reaper_journals_deleted_total", "Journals deleted"],
  ["agentbox_runs_takeovers_total", "Run takeovers"],
  ["agentbox_pool_ready", "Warm sandboxes ready"],
];

/** name → sum of its samples' values; comment lines and malformed lines are skipped. */
export function parsePrometheus(text) {
  const sums = new Map();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const value = Number(m[3]);
    if (Number.isNaN(value)) continue;
    sums.set(m[1], (sums.get(m[1]) ?? 0) + value);
  }
  return sums;
}

/** [label, value] rows; a metric not emitted yet (no sample) shows 0. */
export function figures(text) {
  const sums = parsePrometheus(text);
  return SHOWN.map(([name, label]) => [`${label} (${name})`, sums.get(name) ?? 0]);
}
