import { AgentboxProblem } from "./problem.js";
import { resumableEvents, type ReconnectOptions, type RunEvent } from "./events.js";
import { nextCursor, seg, type Transport } from "./http.js";
import type { InterruptAnswer, LogEntry, Page, RunAccepted, RunRecord, RunRequest, RunStatus } from "./types.js";

export interface RunListOptions {
  threadId?: string;
  status?: RunStatus;
  /** Page size, 1–200 (the server's default 200). */
  pageSize?: number;
}

/** Runs: `/runs…` and `/threads/{threadId}/active-run`. */
export class Runs {
  constructor(
    private readonly http: Transport,
    private readonly reconnect: ReconnectOptions,
  ) {}

  /** Starts a run (`202`); read what it does with {@link events}. A durable run needs a `runId`. */
  start(body: RunRequest): Promise<RunAccepted> {
    return this.http.json("POST", "/runs", { json: body });
  }

  get(runId: string): Promise<RunRecord> {
    return this.http.json("GET", `/runs/${seg(runId)}`);
  }

  /** The tenant's runs, newest first, fetching page after page as the loop goes. */
  async *list(options: RunListOptions = {}): AsyncGenerator<RunRecord, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.listPage({ ...options, limit: options.pageSize, cursor });
      yield* page.items;
      cursor = page.next;
    } while (cursor !== undefined);
  }

  /** One page of runs; `next` is the cursor of the following page. */
  async listPage(
    options: { threadId?: string; status?: RunStatus; limit?: number; cursor?: string } = {},
  ): Promise<Page<RunRecord>> {
    const response = await this.http.send("GET", "/runs", {
      query: { threadId: options.threadId, status: options.status, limit: options.limit, cursor: options.cursor },
      accept: "application/json",
    });
    return { items: (await response.json()) as RunRecord[], next: nextCursor(response) };
  }

  /**
   * Asks the run to stop (`202`, the record): it ends `aborted` with a `RUN_ERROR`, its
   * sandbox destroyed. A terminal run is left as it is.
   */
  cancel(runId: string): Promise<RunRecord> {
    return this.http.json("POST", `/runs/${seg(runId)}/cancel`);
  }

  /** The whole stored log, reading page after page until an empty one. */
  async log(runId: string): Promise<LogEntry[]> {
    const all: LogEntry[] = [];
    let after: string | undefined;
    while (true) {
      const page = await this.logPage(runId, { after });
      if (page.length === 0) return all;
      all.push(...page);
      after = page[page.length - 1].offset;
    }
  }

  /** One page of the stored log after `after` (exclusive), at most `limit` (1–1000) chunks. */
  logPage(runId: string, options: { after?: string; limit?: number } = {}): Promise<LogEntry[]> {
    return this.http.json("GET", `/runs/${seg(runId)}/log`, { query: { after: options.after, limit: options.limit } });
  }

  /**
   * Answers a pending interrupt: an approval with `{status:"resolved", payload:{approved,
   * arguments?}}`, a client tool with `{result}` or `{error}`, or `{status:"cancelled"}`. The
   * same answer twice is quiet; another answer after one is `409 interrupt-answered`.
   */
  answerInterrupt(runId: string, interruptId: string, answer: InterruptAnswer): Promise<void> {
    return this.http.empty("POST", `/runs/${seg(runId)}/interrupts/${seg(interruptId)}`, { json: answer });
  }

  /** The newest run of the thread that has not ended, or undefined when there is none. */
  async activeRun(threadId: string): Promise<RunRecord | undefined> {
    try {
      return await this.http.json<RunRecord>("GET", `/threads/${seg(threadId)}/active-run`);
    } catch (error) {
      if (error instanceof AgentboxProblem && error.status === 404) return undefined;
      throw error;
    }
  }

  /**
   * The run's events, replayed from the start (or after `after`) and then followed live, up to
   * and including its `RUN_FINISHED` or `RUN_ERROR`. A dropped connection is resumed with
   * `Last-Event-ID` = the last id yielded: no event is lost or repeated (see `events.ts`).
   */
  events(
    runId: string,
    options: { after?: string; signal?: AbortSignal; reconnect?: ReconnectOptions } = {},
  ): AsyncGenerator<RunEvent, void, undefined> {
    return resumableEvents(
      (lastEventId, signal) =>
        this.http.send("GET", `/runs/${seg(runId)}/events`, {
          accept: "text/event-stream",
          headers: lastEventId !== undefined ? { "Last-Event-ID": lastEventId } : undefined,
          signal,
        }),
      { after: options.after, signal: options.signal, reconnect: { ...this.reconnect, ...options.reconnect } },
    );
  }
}
