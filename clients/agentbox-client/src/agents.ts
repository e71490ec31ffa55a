import { resumableEvents, type ReconnectOptions, type RunEvent } from "./events.js";
import { seg, type Transport } from "./http.js";
import type { AgentDefinition, AgentDefinitionRequest, AgentThread, RunAgentInput, ThreadTranscript } from "./types.js";

/** Agents: stored run templates driven over AG-UI, `/agents…`. */
export class Agents {
  constructor(
    private readonly http: Transport,
    private readonly reconnect: ReconnectOptions,
  ) {}

  /** Creates or replaces a definition; the creating `PUT` alone shows its `signingSecret`. */
  put(agentId: string, definition: AgentDefinitionRequest): Promise<AgentDefinition> {
    return this.http.json("PUT", `/agents/${seg(agentId)}`, { json: definition });
  }

  /** The definition's view; `404 agent-not-found` when unknown. */
  get(agentId: string): Promise<AgentDefinition> {
    return this.http.json("GET", `/agents/${seg(agentId)}`);
  }

  /** The tenant's definitions, sorted by `agentId`. */
  list(): Promise<AgentDefinition[]> {
    return this.http.json("GET", "/agents");
  }

  /** Deletes the definition (its runs are kept). */
  delete(agentId: string): Promise<void> {
    return this.http.empty("DELETE", `/agents/${seg(agentId)}`);
  }

  /**
   * Runs the agent on an AG-UI `RunAgentInput` and yields the run's AG-UI events until
   * `RUN_FINISHED` (also the one that ends an AG-UI run at an interrupt) or `RUN_ERROR`.
   *
   * A dropped connection is resumed by posting the same input again with `Last-Event-ID`:
   * the server starts no second run for a `runId` it knows, and streams after that id. So the
   * input must carry its `runId`; one without gets a random one here, before the first post,
   * for the resume to name the same run. `lastEventId` resumes a run this process did not
   * start (a page reloaded).
   */
  run(
    agentId: string,
    input: RunAgentInput,
    options: { signal?: AbortSignal; lastEventId?: string; reconnect?: ReconnectOptions } = {},
  ): AsyncGenerator<RunEvent, void, undefined> {
    const body: RunAgentInput = input.runId ? input : { ...input, runId: randomRunId() };
    return resumableEvents(
      (lastEventId, signal) =>
        this.http.send("POST", `/agents/${seg(agentId)}`, {
          json: body,
          accept: "text/event-stream",
          headers: lastEventId !== undefined ? { "Last-Event-ID": lastEventId } : undefined,
          signal,
        }),
      { after: options.lastEventId, signal: options.signal, reconnect: { ...this.reconnect, ...options.reconnect } },
    );
  }

  /**
   * Joins a run started through this agent: its AG-UI events from the start (or after
   * `after`), then live, resumed across dropped connections like {@link run}.
   */
  join(
    agentId: string,
    runId: string,
    options: { after?: string; signal?: AbortSignal; reconnect?: ReconnectOptions } = {},
  ): AsyncGenerator<RunEvent, void, undefined> {
    return resumableEvents(
      (lastEventId, signal) =>
        this.http.send("GET", `/agents/${seg(agentId)}/runs/${seg(runId)}/events`, {
          accept: "text/event-stream",
          headers: lastEventId !== undefined ? { "Last-Event-ID": lastEventId } : undefined,
          signal,
        }),
      { after: options.after, signal: options.signal, reconnect: { ...this.reconnect, ...options.reconnect } },
    );
  }

  /**
   * The thread's conversation as `@tanstack/ai-client` UIMessages, its active run (`null`
   * when none) and that run's pending interrupts (`null` without an active run).
   */
  transcript(agentId: string, threadId: string): Promise<ThreadTranscript> {
    return this.http.json("GET", `/agents/${seg(agentId)}`, { query: { threadId } });
  }

  /** The agent's threads, the most recently updated first; `404 agent-not-found` when unknown. */
  threads(agentId: string, options: { limit?: number } = {}): Promise<AgentThread[]> {
    return this.http.json("GET", `/agents/${seg(agentId)}/threads`, { query: { limit: options.limit } });
  }
}

function randomRunId(): string {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === "function") return `run-${c.randomUUID()}`;
  return `run-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}
