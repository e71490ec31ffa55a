// One sandbox: its record, an exec box, a read-only browser of its workspace, and Destroy.
import { call, enc, json, sandboxPath } from "./api.js";
import { clear, confirmDialog, facts, h, problemBox, timeCell } from "./dom.js";
import { image, ports, secretNames } from "./sandboxes.js";

/** Files larger than this are not shown inline (the API would send them whole). */
const MAX_SHOWN_BYTES = 256 * 1024;

export function mountSandbox(main, key) {
  const base = sandboxPath(key);
  const errors = h("div", { class: "errors" });
  const record = h("div", { class: "record" });
  const destroy = h("button", { type: "button", class: "danger", id: "destroy-sandbox" }, "Destroy sandbox");
  main.append(
    h("p", { class: "crumbs" }, h("a", { href: "#/sandboxes" }, "Sandboxes"), " / "),
    h("h1", { class: "mono break" }, key),
    errors,
    record,
    h("div", { class: "toolbar" }, destroy),
  );
  const files = fileBrowser(base);
  // A command may change the workspace: the folder shown is read again after each exec.
  main.append(execBox(base, files.refresh), files.section);

  json(base)
    .then((s) =>
      record.append(
        facts([
          ["Provider", s.provider],
          ["Image", image(s)],
          ["Thread", s.threadId],
          ["Workspace", s.workspaceRoot],
          ["Created", timeCell(s.createdAt, " ago")],
          ["Last used", timeCell(s.lastUsedAt, " ago")],
          ["Ports", ports(s)],
          ["Brokered secrets", secretNames(s, "brokered")],
          ["Plain secrets", secretNames(s, "plain")],
          ["Snapshot", s.snapshotId],
          ["Capabilities", Object.entries(s.capabilities ?? {}).filter(([, v]) => v).map(([k]) => k).join(", ")],
        ]),
      ),
    )
    .catch((error) => errors.append(problemBox(error)));

  destroy.addEventListener("click", async () => {
    const yes = await confirmDialog(`Destroy sandbox ${key}? Its container and workspace are deleted.`, "Destroy", "Keep");
    if (!yes) return;
    destroy.disabled = true;
    try {
      await call(base, { method: "DELETE" });
      location.hash = "#/sandboxes";
    } catch (error) {
      clear(errors).append(problemBox(error));
      destroy.disabled = false;
    }
  });
  return () => {};
}

function execBox(base, afterRun) {
  const command = h("textarea", { id: "exec-command", name: "command", rows: 2, required: true, spellcheck: "false" });
  const run = h("button", { type: "submit" }, "Run");
  const out = h("div", { class: "exec-result", "aria-live": "polite" });
  const form = h(
    "form",
    { class: "exec", "aria-labelledby": "exec-title" },
    h("h2", { id: "exec-title" }, "Exec"),
    h("label", { for: "exec-command" }, "Command (a shell command, run in the workspace; Ctrl+Enter runs it)"),
    command,
    h("div", { class: "actions" }, run),
    out,
  );
  // Ctrl+Enter runs, as Enter alone adds a line.
  command.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) form.requestSubmit();
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    run.disabled = true;
    clear(out).append(h("p", { class: "muted" }, "Running…"));
    try {
      // A long exec is answered 200 at once with spaces before the JSON (json() trims them);
      // a failure after that commit is a problem document in the 200 body: it has no exitCode.
      const result = await json(`${base}/exec`, { method: "POST", body: { command: command.value } });
      if (result.exitCode === undefined) throw { problem: result };
      clear(out).append(
        h("p", {}, "Exit code ", h("output", { class: `exit-code ${result.exitCode === 0 ? "ok" : "bad"}` }, String(result.exitCode)), result.truncated ? " (output truncated)" : ""),
        h("div", { class: "label" }, "stdout"),
        h("pre", { class: "stdout" }, result.stdout ?? ""),
        h("div", { class: "label" }, "stderr"),
        h("pre", { class: "stderr" }, result.stderr ?? ""),
      );
    } catch (error) {
      clear(out).append(problemBox(error));
    } finally {
      run.disabled = false;
      afterRun();
    }
  });
  return form;
}

function fileBrowser(base) {
  const crumbs = h("nav", { class: "crumbs", "aria-label": "Folder" });
  const list = h("ul", { class: "files" });
  const view = h("div", { class: "file-view" });
  const reload = h("button", { type: "button", id: "refresh-files" }, "Refresh");
  const section = h(
    "section",
    { class: "browser", "aria-labelledby": "files-title" },
    h("h2", { id: "files-title" }, "Workspace files"),
    h("div", { class: "toolbar" }, crumbs, reload),
    list,
    view,
  );
  let current = "/workspace";
  reload.addEventListener("click", () => open(current));

  async function open(dir) {
    current = dir;
    clear(view);
    try {
      const entries = (await json(`${base}/files/list?path=${enc(dir)}`)) ?? [];
      entries.sort((a, b) => (a.type === b.type ? a.name.localeCompare(b.name) : a.type === "dir" ? -1 : 1));
      clear(crumbs).append(...crumbLinks(dir, open));
      clear(list).append(
        ...entries.map((e) =>
          h(
            "li",
            {},
            h(
              "button",
              { type: "button", class: `entry ${e.type}`, onclick: () => (e.type === "dir" ? open(e.path) : show(e.path)) },
              e.type === "dir" ? `${e.name}/` : e.name,
            ),
          ),
        ),
      );
      if (!entries.length) list.append(h("li", { class: "muted" }, "(empty)"));
    } catch (error) {
      clear(list).append(h("li", {}, problemBox(error)));
    }
  }

  async function show(path) {
    clear(view).append(h("p", { class: "muted" }, `Reading ${path}…`));
    try {
      const stat = await json(`${base}/files/stat?path=${enc(path)}`);
      const head = h("div", { class: "label" }, `${path} · ${stat.size ?? "?"} bytes · mode ${stat.mode ?? "?"}`);
      if (stat.type !== "file" || (stat.size ?? 0) > MAX_SHOWN_BYTES) {
        clear(view).append(head, h("p", { class: "muted" }, stat.type !== "file" ? `Not a regular file (${stat.type}).` : "Too large to show here."));
        return;
      }
      const bytes = new Uint8Array(await (await call(`${base}/files?path=${enc(path)}`)).arrayBuffer());
      const binary = bytes.includes(0);
      clear(view).append(head, binary ? h("p", { class: "muted" }, "Binary file.") : h("pre", { class: "file-content" }, new TextDecoder().decode(bytes)));
    } catch (error) {
      clear(view).append(problemBox(error));
    }
  }

  open(current);
  return { section, refresh: () => open(current) };
}

function crumbLinks(dir, open) {
  const parts = dir.split("/").filter(Boolean);
  const out = [];
  parts.forEach((name, i) => {
    const path = "/" + parts.slice(0, i + 1).join("/");
    if (i > 0) out.push(" / ");
    out.push(i === parts.length - 1 ? h("span", { "aria-current": "location" }, name) : h("button", { type: "button", class: "link", onclick: () => open(path) }, name));
  });
  return out;
}
