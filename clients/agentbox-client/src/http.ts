import { AgentboxProblem } from "./problem.js";

/** How the client reaches the server; see {@link AgentboxClientOptions} in `client.ts`. */
export interface TransportOptions {
  baseUrl: string;
  token?: string;
  fetch?: typeof fetch;
  headers?: Record<string, string>;
}

/** Every problem agentbox sends has a `type` under this prefix. */
const PROBLEM_TYPE_PREFIX = "https://agentbox.dev/problems/";

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  /** A JSON value (sent as `application/json`), or raw bytes/text with `contentType`. */
  json?: unknown;
  body?: BodyInit;
  contentType?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  accept?: string;
}

/**
 * The one place requests are made: it joins `baseUrl` + `/api/v1` + path, adds the bearer
 * token and the caller's headers, and turns every non-2xx answer into an {@link AgentboxProblem}
 * (after reading its body, so the connection is released).
 */
export class Transport {
  readonly apiBase: string;
  private readonly token?: string;
  private readonly fetchImpl: typeof fetch;
  private readonly extraHeaders: Record<string, string>;

  constructor(options: TransportOptions) {
    if (!options.baseUrl) throw new TypeError("baseUrl is required");
    this.apiBase = options.baseUrl.replace(/\/+$/, "") + "/api/v1";
    this.token = options.token;
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== "function") throw new TypeError("no fetch: pass options.fetch");
    // bound, so a browser's window.fetch is not called with the client as `this`
    this.fetchImpl = (input, init) => f(input, init);
    this.extraHeaders = { ...(options.headers ?? {}) };
  }

  /** The absolute URL of an API path (`/sandboxes/k`), with its query. */
  url(path: string, query?: Query): string {
    let url = this.apiBase + path;
    if (query) {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
      const text = params.toString();
      if (text) url += (url.includes("?") ? "&" : "?") + text;
    }
    return url;
  }

  /** The headers every request carries: the caller's, then `Authorization` when a token is set. */
  headers(extra?: Record<string, string>): Record<string, string> {
    const headers: Record<string, string> = { ...this.extraHeaders, ...(extra ?? {}) };
    if (this.token !== undefined && this.token !== "") headers["Authorization"] = `Bearer ${this.token}`;
    return headers;
  }

  /** Sends a request; resolves the 2xx response, rejects with the problem otherwise. */
  async send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const headers = this.headers(options.headers);
    let body: BodyInit | undefined = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers["Content-Type"] = "application/json";
    } else if (options.contentType) {
      headers["Content-Type"] = options.contentType;
    }
    if (options.accept) headers["Accept"] = options.accept;
    const response = await this.fetchImpl(this.url(path, options.query), {
      method,
      headers,
      body,
      signal: options.signal,
    });
    if (!response.ok) throw await AgentboxProblem.fromResponse(response);
    return response;
  }

  /**
   * A request through the port proxy: the sandbox's answer is returned whatever its status;
   * only the proxy's own refusals (problem documents of agentbox's problem type) are thrown.
   */
  async proxy(path: string, init: RequestInit): Promise<Response> {
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(this.headers())) if (!headers.has(name)) headers.set(name, value);
    const response = await this.fetchImpl(this.apiBase + path, { ...init, headers });
    const type = response.headers.get("content-type") ?? "";
    if (!response.ok && type.startsWith("application/problem+json")) {
      const text = await response.clone().text();
      if (text.includes(PROBLEM_TYPE_PREFIX)) throw AgentboxProblem.fromText(response.status, text, response.statusText);
    }
    return response;
  }

  /** A request whose answer is JSON. */
  async json<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.send(method, path, { accept: "application/json", ...options });
    const text = await response.text();
    return (text.trim() === "" ? undefined : JSON.parse(text)) as T;
  }

  /** A request whose answer has no body worth reading (`204`, `202`). */
  async empty(method: string, path: string, options: RequestOptions = {}): Promise<void> {
    const response = await this.send(method, path, options);
    await response.body?.cancel().catch(() => undefined);
  }
}

/** Percent-encodes one path segment (run ids may hold `/`). */
export function seg(value: string | number): string {
  return encodeURIComponent(String(value));
}

/** The `cursor` of a `Link: <…&cursor=C>; rel="next"` header, if any. */
export function nextCursor(response: Response): string | undefined {
  const link = response.headers.get("link");
  if (!link) return undefined;
  for (const part of link.split(",")) {
    const match = /<([^>]*)>\s*;\s*rel="?next"?/i.exec(part);
    if (!match) continue;
    const query = match[1].split("?")[1] ?? "";
    const cursor = new URLSearchParams(query).get("cursor");
    if (cursor) return cursor;
  }
  return undefined;
}
