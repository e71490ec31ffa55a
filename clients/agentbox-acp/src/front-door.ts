/**
 * The ACP agent an editor talks to: each ACP session is a thread of one agentbox agent, each
 * prompt turn one run of it (`POST /agents/{agentId}`), read back as `session/update`s.
 *
 * Everything durable lives on the server: the process holds only which sessions this editor
 * opened and the turn or live run it is reading for each. So closing the editor (or killing this
 * process) loses nothing: the run goes on, detached, and `session/load` in a new process shows
 * the thread's finished turns from the transcript and the live one from its stream.
 */
import * as acp from "@agentclientprotocol/sdk";
import { randomUUID } from "node:crypto";
import { initializeResult } from "./initialize.js";
import { promptText, UnsupportedContent } from "./prompt.js";
import { inputHistory, splitLiveTurn, transcriptUpdates, type InputMessage, type TranscriptMessage } from "./transcript.js";
import { ChunkTranslator, type AguiChunk, type AguiInterrupt, type RunEnd } from "./translate.js";

/** One event of a run's stream, as `agentbox-client` yields it. */
export interface StreamEvent {
  id: string;
  type: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
}

/** The part of `agentbox-client`'s `AgentboxClient` the front door uses (a fake in tests). */
export interface AgentboxPort {
  agents: {
    run(agentId: string, input: never, options?: { signal?: AbortSignal }): AsyncIterable<StreamEvent>;
    transcript(agentId: string, threadId: string): Promise<{ messages?: unknown; activeRun?: { runId: string } | null }>;
    threads(agentId: string): Promise<Array<{ threadId: string; title?: string | null; updatedAt?: string | null }>>;
  };
  runs: {
    cancel(runId: string): Promise<unknown>;
    activeRun(threadId: string): Promise<{ runId: string; status?: string } | undefined>;
    events(runId: string, options?: { after?: string; signal?: AbortSignal }): AsyncIterable<StreamEvent>;
    log(runId: string): Promise<Array<{ offset: string; chunk: unknown }>>;
  };
}

export interface FrontDoorOptions {
  client: AgentboxPort;
  agentId: string;
  /** Diagnostics (stderr in the command); never the protocol's stdout. */
  log?: (message: string) => void;
  /**
   * `initialize` was answered before the library loaded (see `cli.ts`): no handler for it here,
   * since the library would then refuse every request until it answered one itself.
   */
  initializeAnswered?: boolean;
  /** How long a cancelled turn waits for the run's own end before answering `cancelled` (default 10 s). */
  cancelWaitMs?: number;
}

/** The permission options of every approval: ACP's answers that agentbox's approvals take. */
export const PERMISSION_OPTIONS: acp.PermissionOption[] = [
  { optionId: "allow", name: "Allow once", kind: "allow_once" },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
];

/** JSON-RPC error code of a prompt refused because a run of the thread is live (a server error). */
export const SESSION_BUSY = -32001;

/** One prompt turn in flight: the run it started, and how to stop reading it. */
class Turn {
  /** Closes the turn's stream: a cancel that waited long enough, a closed session or editor. */
  readonly reading = new AbortController();
  cancelled = false;
  /** The run exists on the server (its stream sent something): a cancel can name it. */
  started = false;
  constructor(readonly runId: string) {}
}

class Session {
  history: InputMessage[] = [];
  turn?: Turn;
  /** Reading a live run this editor did not start (after `session/load` or `session/resume`). */
  follow?: AbortController;
  constructor(
    readonly id: string,
    public cwd: string,
    /**
     * Made by `session/new` here and never prompted: no run of the thread can be live, so its
     * first prompt skips the live-run check (one request less before the run starts).
     */
    public fresh: boolean,
  ) {}
}

function isProblem(e: unknown): e is { status: number; code: string; title?: string; detail?: string } {
  return !!e && typeof e === "object" && typeof (e as { status?: unknown }).status === "number" && typeof (e as { code?: unknown }).code === "string";
}

/** A failure of the service (a problem, or no answer at all) as the JSON-RPC error the editor shows. */
export function serviceError(what: string, e: unknown): acp.RequestError {
  if (e instanceof acp.RequestError) return e;
  if (isProblem(e)) {
    return new acp.RequestError(-32603, `${what}: agentbox answered ${e.status} ${e.code}${e.detail ? ` (${e.detail})` : e.title ? ` (${e.title})` : ""}`, {
      status: e.status,
      code: e.code,
    });
  }
  const cause = (e as { cause?: { message?: string } })?.cause?.message;
  return new acp.RequestError(-32603, `${what}: ${(e as Error)?.message ?? String(e)}${cause ? ` (${cause})` : ""}`);
}

function busy(sessionId: string, runId: string): acp.RequestError {
  return new acp.RequestError(
    SESSION_BUSY,
    `session ${sessionId} has a live turn (run ${runId}); wait for its end, or cancel it, before prompting again`,
    { code: "session-busy", runId },
  );
}

function chunkOf(event: StreamEvent): AguiChunk {
  const data = event.data && typeof event.data === "object" ? event.data : {};
  return typeof data.type === "string" ? data : { ...data, type: event.type };
}

function textOf(update: acp.SessionUpdate): string {
  return update.sessionUpdate === "agent_message_chunk" && update.content.type === "text" ? update.content.text : "";
}

/**
 * Builds the ACP agent. Connect it to a stream with `.connect(ndJsonStream(…))`; call
 * {@link FrontDoor.detachAll} when the editor has gone, so no stream is read any longer (the
 * server detaches the runs, which go on).
 */
export class FrontDoor {
  private readonly sessions = new Map<string, Session>();
  private readonly client: AgentboxPort;
  private readonly agentId: string;
  private readonly log: (message: string) => void;
  private readonly cancelWaitMs: number;
  readonly app: acp.AgentApp;

  constructor(options: FrontDoorOptions) {
    this.client = options.client;
    this.agentId = options.agentId;
    this.log = options.log ?? (() => {});
    this.cancelWaitMs = options.cancelWaitMs ?? 10_000;
    const app = acp.agent({ name: "agentbox-acp" });
    if (!options.initializeAnswered) app.onRequest(acp.methods.agent.initialize, () => initializeResult() as acp.InitializeResponse);
    this.app = app
      .onRequest(acp.methods.agent.session.new, ({ params }) => this.newSession(params))
      .onRequest(acp.methods.agent.session.prompt, ({ params, client, signal }) => this.prompt(params, client, signal))
      .onNotification(acp.methods.agent.session.cancel, ({ params }) => this.cancel(params.sessionId))
      .onRequest(acp.methods.agent.session.list, ({ params }) => this.list(params))
      .onRequest(acp.methods.agent.session.load, ({ params, client }) => this.load(params, client))
      .onRequest(acp.methods.agent.session.resume, ({ params, client }) => this.resume(params, client))
      .onRequest(acp.methods.agent.session.close, ({ params }) => this.close(params.sessionId))
      .onRequest(acp.methods.agent.authenticate, () => ({}));
  }

  /** Stops reading every stream; the runs go on server-side (durable, detached). */
  detachAll(): void {
    for (const session of this.sessions.values()) {
      session.follow?.abort();
      session.turn?.reading.abort();
    }
  }

  private session(id: string): Session {
    const session = this.sessions.get(id);
    if (!session) throw acp.RequestError.sessionNotFound(id);
    return session;
  }

  private newSession(params: acp.NewSessionRequest): acp.NewSessionResponse {
    const id = `acp-${randomUUID()}`;
    this.sessions.set(id, new Session(id, params.cwd, true));
    return { sessionId: id };
  }

  private async notify(client: acp.AgentContext, sessionId: string, update: acp.SessionUpdate): Promise<void> {
    await client.notify(acp.methods.client.session.update, { sessionId, update });
  }

  /**
   * One prompt turn: the run, and after each approval it stops at, the editor's answer posted as
   * the thread's next input and its continuation read as part of the same turn.
   */
  private async prompt(params: acp.PromptRequest, client: acp.AgentContext, signal: AbortSignal): Promise<acp.PromptResponse> {
    const session = this.session(params.sessionId);
    if (session.turn) throw busy(session.id, session.turn.runId);
    let text: string;
    try {
      text = promptText(params.prompt);
    } catch (e) {
      if (e instanceof UnsupportedContent) throw acp.RequestError.invalidParams(undefined, e.message);
      throw e;
    }
    const turn = new Turn(`acp-run-${randomUUID()}`);
    session.turn = turn; // before any await: a second prompt of this session is refused at once
    const onGone = () => turn.reading.abort();
    signal.addEventListener("abort", onGone, { once: true });
    const user: InputMessage = { id: `${turn.runId}-user`, role: "user", content: text };
    const reply: string[] = [];
    let posted = false;
    try {
      if (!session.fresh) {
        // Another editor (or an earlier process) may have a run of this thread going: a second
        // run beside it would share its sandbox and interleave its transcript.
        let live;
        try {
          live = await this.client.runs.activeRun(session.id);
        } catch (e) {
          throw serviceError("cannot check the session's live run", e);
        }
        if (live) throw busy(session.id, live.runId);
      }
      if (turn.cancelled || turn.reading.signal.aborted) return { stopReason: "cancelled" };
      session.fresh = false;
      let input: Record<string, unknown> = {
        threadId: session.id,
        runId: turn.runId,
        messages: [...session.history, user],
        tools: [],
        context: [],
        state: {},
        forwardedProps: {},
      };
      const translator = new ChunkTranslator();
      posted = true;
      while (true) {
        let end: RunEnd | undefined;
        try {
          end = await this.read(this.client.agents.run(this.agentId, input as never, { signal: turn.reading.signal }), translator, session, client, turn, reply);
        } catch (e) {
          if (turn.cancelled || turn.reading.signal.aborted) return { stopReason: "cancelled" };
          throw serviceError("the run could not be started or read", e);
        }
        if (!end || turn.cancelled) return { stopReason: "cancelled" };
        if (end.kind === "finished") return { stopReason: end.stopReason };
        if (end.kind === "error") throw new acp.RequestError(-32603, `the run ended with an error: ${end.message}`, { code: end.code, runId: turn.runId });
        const interrupt = end.interrupts[0];
        const approved = await this.askPermission(interrupt, translator, session, client, turn);
        if (approved === undefined) {
          turn.cancelled = true;
          await this.cancelRun(turn);
          return { stopReason: "cancelled" };
        }
        input = {
          ...input,
          runId: `acp-run-${randomUUID()}`,
          resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved } }],
        };
      }
    } finally {
      signal.removeEventListener("abort", onGone);
      session.turn = undefined;
      if (posted) {
        session.history.push(user);
        if (reply.length) session.history.push({ id: `${turn.runId}-reply`, role: "assistant", content: reply.join("") });
      }
    }
  }

  /** Reads one AG-UI run into updates; its end, or undefined when the reading was stopped. */
  private async read(
    events: AsyncIterable<StreamEvent>,
    translator: ChunkTranslator,
    session: Session,
    client: acp.AgentContext,
    turn: Turn,
    reply: string[],
  ): Promise<RunEnd | undefined> {
    for await (const event of events) {
      if (!turn.started) {
        turn.started = true;
        // A cancel that came before the run existed is sent now that it does.
        if (turn.cancelled) void this.cancelRun(turn);
      }
      const { updates, end } = translator.push(chunkOf(event));
      for (const update of updates) {
        reply.push(textOf(update));
        await this.notify(client, session.id, update);
      }
      if (end) return end;
    }
    return undefined;
  }

  /** Asks the editor about an approval: true (allow), false (reject) or undefined (the turn was cancelled). */
  private async askPermission(
    interrupt: AguiInterrupt,
    translator: ChunkTranslator,
    session: Session,
    client: acp.AgentContext,
    turn: Turn,
  ): Promise<boolean | undefined> {
    const { toolCall, announce } = translator.permissionRequest(interrupt);
    if (announce) await this.notify(client, session.id, announce);
    let response: acp.RequestPermissionResponse;
    try {
      response = await client.request(
        acp.methods.client.session.requestPermission,
        { sessionId: session.id, toolCall, options: PERMISSION_OPTIONS },
        { cancellationSignal: turn.reading.signal, stopWaitingOnCancel: true },
      );
    } catch (e) {
      if (turn.reading.signal.aborted) return undefined;
      throw serviceError("the editor did not answer the permission request", e);
    }
    if (turn.cancelled || response.outcome.outcome !== "selected") return undefined;
    return response.outcome.optionId === "allow";
  }

  /** `session/cancel`: cancels the turn's run (`POST /runs/{runId}/cancel`); the prompt answers `cancelled`. */
  private cancel(sessionId: string): void {
    const turn = this.sessions.get(sessionId)?.turn;
    if (!turn || turn.cancelled) return;
    turn.cancelled = true;
    if (turn.started) void this.cancelRun(turn);
  }

  private async cancelRun(turn: Turn): Promise<void> {
    // The run's own end (RUN_ERROR) closes the stream; a run that does not end in time is left
    // to the server, which ends it, and the turn answers `cancelled` all the same.
    const timer = setTimeout(() => turn.reading.abort(), this.cancelWaitMs);
    timer.unref?.();
    try {
      await this.client.runs.cancel(turn.runId);
    } catch (e) {
      this.log(`cancel of run ${turn.runId} failed: ${serviceError("cancel", e).message}`);
      turn.reading.abort();
    }
  }

  private async list(params: acp.ListSessionsRequest): Promise<acp.ListSessionsResponse> {
    let threads;
    try {
      threads = await this.client.agents.threads(this.agentId);
    } catch (e) {
      throw serviceError(`cannot list the threads of agent ${this.agentId}`, e);
    }
    return {
      sessions: threads.map((t) => ({
        sessionId: t.threadId,
        // The agent works in its sandbox: a thread has no folder of the editor's. Report the one
        // this editor used for it, else the one it asks about.
        cwd: this.sessions.get(t.threadId)?.cwd ?? params.cwd ?? process.cwd(),
        title: t.title ?? null,
        updatedAt: t.updatedAt ?? null,
      })),
    };
  }

  /** Opens a session over an existing thread; `replay` sends its finished turns first. */
  private async open(sessionId: string, cwd: string, client: acp.AgentContext, replay: boolean): Promise<void> {
    let transcript;
    try {
      transcript = await this.client.agents.transcript(this.agentId, sessionId);
    } catch (e) {
      throw serviceError(`cannot read session ${sessionId}`, e);
    }
    const liveRunId = transcript.activeRun?.runId;
    const messages = (Array.isArray(transcript.messages) ? transcript.messages : []) as TranscriptMessage[];
    const { finished, liveTurn } = splitLiveTurn(messages, !!liveRunId);

    const previous = this.sessions.get(sessionId);
    previous?.follow?.abort();
    const session = new Session(sessionId, cwd, false);
    session.history = inputHistory([...finished, ...liveTurn.filter((m) => m.role === "user")]);
    this.sessions.set(sessionId, session);

    if (replay) for (const update of transcriptUpdates(finished)) await this.notify(client, sessionId, update);
    if (!liveRunId) return;
    if (replay) {
      // The live turn from its start: its prompt here, the rest from its stream.
      for (const update of transcriptUpdates(liveTurn.filter((m) => m.role === "user"))) await this.notify(client, sessionId, update);
      this.follow(session, liveRunId, client, new ChunkTranslator(), undefined);
      return;
    }
    // Resumed: the editor has what it saw; show what happens from now on. The stored log so far
    // primes the translator (the calls it names) without being sent.
    const translator = new ChunkTranslator();
    let after: string | undefined;
    try {
      for (const entry of await this.client.runs.log(liveRunId)) {
        translator.push(entry.chunk as AguiChunk);
        after = entry.offset;
      }
    } catch (e) {
      throw serviceError(`cannot read the live run ${liveRunId}`, e);
    }
    this.follow(session, liveRunId, client, translator, after);
  }

  /** Reads a live run in the background until its end, a `session/close` or the editor's exit. */
  private follow(session: Session, runId: string, client: acp.AgentContext, translator: ChunkTranslator, after: string | undefined): void {
    const controller = new AbortController();
    session.follow = controller;
    const reply: string[] = [];
    void (async () => {
      try {
        for await (const event of this.client.runs.events(runId, { after, signal: controller.signal })) {
          const { updates, end } = translator.push(chunkOf(event));
          for (const update of updates) {
            reply.push(textOf(update));
            await this.notify(client, session.id, update);
          }
          if (end) break;
        }
      } catch (e) {
        if (!controller.signal.aborted) this.log(`following run ${runId} of session ${session.id} stopped: ${serviceError("follow", e).message}`);
      } finally {
        if (session.follow === controller) session.follow = undefined;
        if (reply.join("")) session.history.push({ id: `${runId}-reply`, role: "assistant", content: reply.join("") });
      }
    })();
  }

  private async load(params: acp.LoadSessionRequest, client: acp.AgentContext): Promise<acp.LoadSessionResponse> {
    await this.open(params.sessionId, params.cwd, client, true);
    return {};
  }

  private async resume(params: acp.ResumeSessionRequest, client: acp.AgentContext): Promise<acp.ResumeSessionResponse> {
    await this.open(params.sessionId, params.cwd, client, false);
    return {};
  }

  /**
   * `session/close`: this editor stops reading the session. Unlike a cancel, it leaves the run
   * alone: agentbox's runs are durable and outlive the editor, and the thread can be loaded again.
   */
  private close(sessionId: string): acp.CloseSessionResponse {
    const session = this.sessions.get(sessionId);
    if (!session) return {};
    session.follow?.abort();
    session.turn?.reading.abort();
    this.sessions.delete(sessionId);
    return {};
  }
}
