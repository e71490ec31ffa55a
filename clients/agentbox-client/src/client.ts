import { Agents } from "./agents.js";
import type { ReconnectOptions } from "./events.js";
import { Transport } from "./http.js";
import { Runs } from "./runs.js";
import { Sandboxes } from "./sandboxes.js";
import type { Provider } from "./types.js";

export interface AgentboxClientOptions {
  /** The server's origin, without `/api/v1` (the client appends it): `http://localhost:9080`. */
  baseUrl: string;
  /** The tenant's bearer token; leave it out for a server in development mode. */
  token?: string;
  /** A `fetch` to use instead of the global one (tests, proxies, instrumented fetches). */
  fetch?: typeof fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** How event streams are resumed after a dropped connection (defaults: 5 attempts, 250 ms). */
  reconnect?: ReconnectOptions;
}

/**
 * The agentbox HTTP API, typed. It holds no state between calls but its options: one client
 * may serve any number of concurrent calls and streams.
 */
export class AgentboxClient {
  readonly sandboxes: Sandboxes;
  readonly runs: Runs;
  readonly agents: Agents;
  private readonly http: Transport;

  constructor(options: AgentboxClientOptions) {
    this.http = new Transport(options);
    const reconnect = options.reconnect ?? {};
    this.sandboxes = new Sandboxes(this.http);
    this.runs = new Runs(this.http, reconnect);
    this.agents = new Agents(this.http, reconnect);
  }

  /** The enabled providers with their capabilities, checked live. Decide on capabilities, not names. */
  providers(): Promise<Provider[]> {
    return this.http.json("GET", "/providers");
  }

  /** The absolute URL of an API path, e.g. `url("/runs/r-1/events")`; for links and raw `fetch`es. */
  url(path: string): string {
    return this.http.url(path);
  }
}
