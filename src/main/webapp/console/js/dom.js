// DOM building for every view. Server data (run output above all) is hostile: it only ever
// reaches the page as text nodes or attribute values, never as markup (no innerHTML anywhere).

/** h("a", {href: "#/runs", class: "x", onclick: fn}, "text", child, [more]) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (name === "class") el.className = value;
    else if (value === true) el.setAttribute(name, "");
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of [children].flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

export function clear(el) {
  el.replaceChildren();
  return el;
}

/** A problem document (RFC 9457) as the console shows every error: title, detail, code. */
export function problemBox(error) {
  const p = error?.problem ?? { title: "Error", detail: String(error?.message ?? error) };
  return h(
    "div",
    { class: "problem", role: "alert" },
    h("strong", { class: "problem-title" }, p.title ?? "Error"),
    p.status ? h("span", { class: "problem-status" }, ` ${p.status}`) : null,
    p.detail ? h("p", { class: "problem-detail" }, p.detail) : null,
    p.code ? h("p", { class: "problem-code muted" }, `code: ${p.code}`) : null,
  );
}

/** "12 s", "3 min", "2 h", "4 d" since (or until) an ISO time. */
export function age(iso, now = Date.now()) {
  if (!iso) return "—";
  const ms = Math.abs(now - Date.parse(iso));
  const s = Math.round(ms / 1000);
  if (s < 90) return `${s} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  if (s < 36 * 3600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}

/** A <time> with the relative age as text and the exact time as its title. */
export function timeCell(iso, suffix = "") {
  if (!iso) return "—";
  return h("time", { datetime: iso, title: iso }, age(iso) + suffix);
}

/** A yes/no dialog (a modal <dialog>: focus moves into it, Escape answers no). */
export function confirmDialog(message, yesLabel, noLabel = "Keep") {
  return new Promise((resolve) => {
    const yes = h("button", { type: "button", class: "danger", value: "yes" }, yesLabel);
    const no = h("button", { type: "button", value: "no" }, noLabel);
    const dialog = h(
      "dialog",
      { class: "confirm", "aria-label": yesLabel },
      h("p", {}, message),
      h("div", { class: "actions" }, no, yes),
    );
    const close = (answer) => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    yes.addEventListener("click", () => close(true));
    no.addEventListener("click", () => close(false));
    dialog.addEventListener("cancel", () => close(false));
    document.body.append(dialog);
    dialog.showModal();
    no.focus();
  });
}

/** A definition list from [label, value] pairs; pairs with no value are left out. */
export function facts(pairs) {
  const dl = h("dl", { class: "facts" });
  for (const [label, value] of pairs) {
    if (value === undefined || value === null || value === "") continue;
    dl.append(h("dt", {}, label), h("dd", {}, value));
  }
  return dl;
}

export const TERMINAL = new Set(["completed", "failed", "aborted"]);

export function statusBadge(status) {
  return h("span", { class: `badge status-${status}` }, status);
}

/**
 * Runs an action of {@code button}: the button is disabled while it runs (no second click sends
 * it twice), and a failure is shown in {@code errors} as a problem box.
 */
export async function busy(button, errors, action) {
  button.disabled = true;
  try {
    await action();
  } catch (error) {
    clear(errors).append(problemBox(error));
  } finally {
    button.disabled = false;
  }
}
