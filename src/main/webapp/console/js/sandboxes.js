// The tenant's sandboxes, polled every 5 s, oldest first. The API pages the list (a Link
// rel="next" header); a "Load more" button follows it, as on the runs list. Image and ports are
// what the ensure asked for: no image means the provider's default, no ports none published.
import { enc, listPage } from "./api.js";
import { busy, clear, h, problemBox, timeCell } from "./dom.js";

const POLL_MS = 5000;

export function mountSandboxes(main) {
  const errors = h("div", { class: "errors" });
  const body = h("tbody");
  const empty = h("p", { class: "muted empty", hidden: true }, "No sandboxes.");
  const more = h("button", { type: "button", class: "load-more", hidden: true }, "Load more");
  const cols = ["Key", "Provider", "Image", "Thread", "Age", "Last used", "Ports"];
  main.append(
    h("h1", {}, "Sandboxes"),
    errors,
    h("table", { class: "sandboxes list", "aria-label": "Sandboxes" }, h("thead", {}, h("tr", {}, cols.map((c) => h("th", { scope: "col" }, c)))), body),
    empty,
    more,
  );
  let timer = null;
  let stopped = false;
  let first = [];
  let extra = [];
  let next = null;

  function render() {
    const keys = new Set(first.map((s) => s.key));
    const list = first.concat(extra.filter((s) => !keys.has(s.key)));
    body.replaceChildren(
      ...list.map((s) => {
        const cells = [
          h("a", { href: `#/sandboxes/${enc(s.key)}`, class: "mono", title: s.key }, short(s.key)),
          s.provider,
          image(s),
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
    more.hidden = !next;
  }

  async function refresh() {
    try {
      const p = await listPage("/api/v1/sandboxes");
      if (stopped) return;
      first = p.items;
      // Pages loaded by hand stay; the first page sets where the next starts only until then.
      if (!extra.length) next = p.next;
      clear(errors);
      render();
    } catch (error) {
      if (!stopped) clear(errors).append(problemBox(error));
    }
  }

  more.addEventListener("click", async () => {
    if (!next) return;
    await busy(more, errors, async () => {
      const p = await listPage(next);
      extra = extra.concat(p.items);
      next = p.next;
      render();
    });
  });

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

/** The published ports, or "—" when none. */
export function ports(s) {
  return Array.isArray(s.ports) && s.ports.length ? s.ports.join(", ") : "—";
}

/**
 * The names of the sandbox's secrets of one form ("brokered": the sandbox holds a placeholder,
 * the egress gateway the value; "plain": the sandbox holds the value), joined; undefined when
 * none, so the row is left out. Names only: the API never shows a value.
 */
export function secretNames(s, form) {
  const names = s.secrets?.[form];
  return Array.isArray(names) && names.length ? names.join(", ") : undefined;
}

/** The image the ensure asked for, or "default" (the provider's, agentbox.docker.image). */
export function image(s) {
  return s.image ?? "default";
}
