// The public API, called with the session's bearer token. Every non-2xx answer becomes a
// Problem carrying the server's problem document (title, detail, code), which views show as is.

const TOKEN_KEY = "agentbox.console.token";

export const session = {
  token: sessionStorage.getItem(TOKEN_KEY) ?? "",
  admin: false,
  /** Called on a 401 anywhere, so the console asks for a token again. */
  onUnauthorized: () => {},
};

export function setToken(token) {
  session.token = token;
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

export class Problem extends Error {
  constructor(problem, status) {
    super(`${problem.title}: ${problem.detail ?? ""}`);
    this.problem = problem;
    this.status = status;
  }
}

/** fetch with the token; throws a Problem unless the answer is 2xx. */
export async function call(path, { method = "GET", body, headers = {}, signal } = {}) {
  const h = new Headers(headers);
  if (session.token) h.set("Authorization", `Bearer ${session.token}`);
  let payload;
  if (body !== undefined) {
    h.set("Content-Type", "application/json");
    payload = JSON.stringify(body);
  }
  const res = await fetch(path, { method, headers: h, body: payload, signal, cache: "no-store" });
  if (!res.ok) {
    const problem = await problemOf(res);
    if (res.status === 401) session.onUnauthorized(problem);
    throw problem;
  }
  return res;
}

/** The answer's JSON (null for an empty body); leading whitespace is legal and trimmed. */
export async function json(path, options) {
  const text = (await (await call(path, options)).text()).trim();
  return text ? JSON.parse(text) : null;
}

export async function problemOf(res) {
  const text = await res.text();
  let p = null;
  try {
    p = JSON.parse(text);
  } catch {
    // not a problem document: a proxy's page, a cut connection
  }
  if (!p || typeof p !== "object" || !p.title) {
    p = { title: `HTTP ${res.status}`, status: res.status, detail: text.slice(0, 300) || res.statusText };
  }
  return new Problem(p, res.status);
}

/** The target of a `Link: <…>; rel="next"` header, or null. Only same-origin targets count. */
export function nextLink(res) {
  const header = res.headers.get("Link");
  if (!header) return null;
  for (const part of header.split(/,(?=\s*<)/)) {
    const m = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (m && /;\s*rel="?([^";]*\s)?next(\s[^";]*)?"?\s*(;|$)/i.test(m[2])) {
      const url = new URL(m[1], new URL(res.url, location.href));
      return url.origin === location.origin ? url.pathname + url.search : null;
    }
  }
  return null;
}

/** One page of a list endpoint: its entries and the path of the next page (null on the last). */
export async function listPage(path) {
  const res = await call(path);
  return { items: JSON.parse((await res.text()).trim() || "[]"), next: nextLink(res) };
}

export const enc = encodeURIComponent;
export const runPath = (runId) => `/api/v1/runs/${enc(runId)}`;
export const sandboxPath = (key) => `/api/v1/sandboxes/${enc(key)}`;
