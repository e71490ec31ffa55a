// The tenant's sandboxes, polled every 5 s. Image and ports are shown when the API's sandbox
// view carries them; today it has neither, so those columns say so instead of guessing.
import { enc, json } from "./api.js";
import { clear, h, problemBox, timeCell } from "./dom.js";

const POLL_MS = 5000;

export function mountSandboxes(main) {
  const errors = h("div", { class: "errors" });
  const body = h("tbody");
  const empty = h("p", { class: "muted empty", hidden: true }, "No sandboxes.");
  const cols = ["Key", "Provider", "Image", "Thread", "Age", "Last used", "Ports"];
  main.append(
    h("h1", {}, "Sandboxes"),
    errors,
    h("table", { class: "sandboxes list", "aria-label": "Sandboxes" }, h("thead", {}, h("tr", {}, cols.map((c) => h("th", { scope: "col" }, c)))), body),
    empty,
  );
  let timer = null;
  let stopped = false;

  async function refresh() {
    try {
      const list = (await json("/api/v1/sandboxes")) ?? [];
      if (stopped) return;
      clear(errors);
      body.replaceChildren(
        ...list.map((s) => {
          const cells = [
            h("a", { href: `#/sandboxes/${enc(s.key)}`, class: "mono", title: s.key }, short(s.key)),
            s.provider,
            s.image ?? "—",
            s.threadId ?? "",
            timeCell(s.createdAt),
            timeCell(s.lastUsedAt, " ago"),
            ports(s),
          ];
          const tr = h("tr", {}, cells.map((c, i) => h("td", { "data-label": cols[i] }, c)));
          tr.dataset.key = s.key;
          return tr;
        }),
      );
      empty.hidden = list.length > 0;
    } catch (error) {
      if (!stopped) clear(errors).append(problemBox(error));
    }
  }

  const loop = async () => {
    await refresh();
    if (!stopped) timer = setTimeout(loop, POLL_MS);
  };
  loop();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

export function short(key) {
  return key.length > 16 ? `${key.slice(0, 12)}…` : key;
}

export function ports(s) {
  const p = s.ports ?? s.policy?.ports;
  return Array.isArray(p) && p.length ? p.join(", ") : "—";
}
