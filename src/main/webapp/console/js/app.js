// The console's shell: who is signed in, which section shows, and the hash router.
// Each view is mount(main, params) → a cleanup function that stops its polls and streams.
import { call, session, setToken } from "./api.js";
import { mountApprovals } from "./approvals.js";
import { clear, h, problemBox } from "./dom.js";
import { mountOperations } from "./operations.js";
import { mountRun } from "./run.js";
import { mountRuns } from "./runs.js";
import { mountSandbox } from "./sandbox.js";
import { mountSandboxes } from "./sandboxes.js";

const main = document.getElementById("main");
const nav = document.getElementById("nav");
const who = document.getElementById("who");
const signOut = document.getElementById("sign-out");
const navOperations = document.getElementById("nav-operations");

const routes = [
  [/^#\/runs\/(.+)$/, (m) => mountRun(main, decodeURIComponent(m[1]))],
  [/^#\/runs\/?$/, () => mountRuns(main)],
  [/^#\/approvals\/?$/, () => mountApprovals(main)],
  [/^#\/sandboxes\/(.+)$/, (m) => mountSandbox(main, decodeURIComponent(m[1]))],
  [/^#\/sandboxes\/?$/, () => mountSandboxes(main)],
  [/^#\/operations\/?$/, () => mountOperations(main)],
];

let state = "unknown"; // unknown | signed-out | signed-in
let cleanup = () => {};
let signInProblem = null;

/**
 * Who the token belongs to: the admin endpoint answers 200 for the admin tenant (and for anyone
 * in development mode, where no tokens are configured), 403 for other tenants, 401 without a
 * valid token.
 */
async function probe() {
  try {
    await call("/api/v1/admin/reaper");
    return { signedIn: true, admin: true };
  } catch (error) {
    if (error.status === 403) return { signedIn: true, admin: false };
    if (error.status === 401) return { signedIn: false, problem: error };
    throw error;
  }
}

async function start() {
  try {
    const found = await probe();
    enter(found);
  } catch (error) {
    clear(main).append(h("h1", {}, "agentbox console"), problemBox(error));
  }
}

function enter(found) {
  if (!found.signedIn) {
    state = "signed-out";
    signInProblem = session.token ? found.problem : null;
    setToken("");
    route();
    return;
  }
  state = "signed-in";
  session.admin = found.admin;
  nav.hidden = false;
  navOperations.hidden = !found.admin;
  signOut.hidden = !session.token;
  who.textContent = session.token
    ? found.admin
      ? "Signed in · admin"
      : "Signed in"
    : "Development mode (no token)";
  if (!location.hash || location.hash === "#/" || location.hash === "#/signin") {
    location.hash = "#/runs";
  } else {
    route();
  }
}

function route() {
  cleanup();
  cleanup = () => {};
  clear(main);
  if (state === "signed-out") {
    nav.hidden = true;
    signOut.hidden = true;
    who.textContent = "";
    mountSignIn();
    return;
  }
  if (state !== "signed-in") return;
  for (const [pattern, mount] of routes) {
    const m = pattern.exec(location.hash);
    if (m) {
      cleanup = mount(m) ?? (() => {});
      markCurrent();
      return;
    }
  }
  location.hash = "#/runs";
}

function markCurrent() {
  for (const a of nav.querySelectorAll("a")) {
    const here = location.hash.startsWith(a.getAttribute("href"));
    if (here) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
}

function mountSignIn() {
  const input = h("input", {
    id: "token",
    name: "token",
    type: "password",
    autocomplete: "off",
    required: true,
  });
  const status = h("div", { class: "form-status" });
  const form = h(
    "form",
    { class: "signin", "aria-labelledby": "signin-title" },
    h("h1", { id: "signin-title" }, "Sign in"),
    h("p", { class: "muted" }, "A tenant's bearer token, as the API takes it. It is kept for this tab only."),
    h("label", { for: "token" }, "Bearer token"),
    input,
    h("button", { type: "submit" }, "Sign in"),
    status,
  );
  if (signInProblem) status.append(problemBox(signInProblem));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clear(status);
    setToken(input.value.trim());
    try {
      const found = await probe();
      if (!found.signedIn) {
        setToken("");
        status.append(problemBox(found.problem));
        input.focus();
        return;
      }
      enter(found);
    } catch (error) {
      setToken("");
      status.append(problemBox(error));
    }
  });
  main.append(form);
  input.focus();
}

session.onUnauthorized = (problem) => {
  if (state !== "signed-in") return;
  state = "signed-out";
  signInProblem = problem;
  setToken("");
  route();
};

signOut.addEventListener("click", () => {
  setToken("");
  session.admin = false;
  state = "signed-out";
  signInProblem = null;
  location.hash = "#/signin";
  route();
});

window.addEventListener("hashchange", route);
start();
