// A scripted ACP (Agent Client Protocol v1) agent for agentbox's acp harness tests.
//
// agentbox is the ACP client; this program plays the agent that runs inside the sandbox. It is
// built on the official SDK (@agentclientprotocol/sdk) so that what it puts on the wire is what a
// real SDK-based agent would, and it is bundled into one self-contained file
// (dist/acp-test-agent.bundle.mjs, see build-acp-agent.mjs) because the sandbox has Node but no
// node_modules. agentbox starts it as `node acp-test-agent.bundle.mjs`.
//
// Wire: stdin/stdout carry JSON-RPC 2.0, one message per line. Nothing but protocol lines may go
// to stdout, so diagnostics go to stderr. The process exits 0 as soon as stdin ends.
//
// What a prompt does is chosen by its first word (the prompt is one text block):
//   say <words...>     two agent_message_chunk updates carrying the words, end_turn
//   think              two agent_thought_chunk updates, then the message "done", end_turn
//   history            the previous user prompts of this session joined by " | ", end_turn
//   mode               the current mode id, end_turn
//   echo-setup         JSON {method, params} of the last session/new, session/load or session/resume
//   write <path> <txt> tool_call + session/request_permission; writes <txt> to <path> under cwd
//                      when allowed ("wrote"), reports a failed tool call otherwise ("not written")
//   all-kinds          one session/update of every kind in the v1 schema's SessionUpdate, end_turn
//   unknown-kind       a session/update whose sessionUpdate is "future_kind_x", end_turn
//   malformed          three bad lines on stdout, then the message "survived", end_turn
//   bigline            one 10 MiB session/update line, then the message "after", end_turn
//   flood [n]          n (default 100000) agent_message_chunk updates of ".", end_turn
//   fs                 calls fs/read_text_file (which the client does not offer), reports the error
//   error              answers the prompt with JSON-RPC error -32000
//   refuse, maxtokens  stopReason refusal / max_tokens
//   slow <ms>          "started", waits ms (session/cancel cuts it short), "finished", end_turn
//   pid-slow <ms>      "pid <its process id> ", then as slow: a takeover test tells its process apart
//   exit-early         exits 0 without answering
//   anything else      the message "unknown scenario", end_turn
// session/cancel ends the prompt in progress with stopReason "cancelled".
//
// Sessions persist in $HOME/.acp-test-agent/<sessionId>.json, so session/load (which replays the
// history) and session/resume (which does not) work in a later process, as they do when agentbox
// restarts the agent for the next turn of a conversation.
//
// Environment: ACP_TEST_NO_LOAD=1 advertises neither session/load nor session/resume (and refuses
// both); ACP_TEST_LOAD_ONLY=1 advertises session/load but not session/resume.

import * as acp from "@agentclientprotocol/sdk";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";

const NO_LOAD = process.env.ACP_TEST_NO_LOAD === "1";
const LOAD_ONLY = process.env.ACP_TEST_LOAD_ONLY === "1";
const CAN_LOAD = !NO_LOAD;
const CAN_RESUME = !NO_LOAD && !LOAD_ONLY;

const STATE_DIR = path.join(process.env.HOME || os.homedir(), ".acp-test-agent");

const MODES = [
  { id: "default", name: "Default" },
  { id: "acceptEdits", name: "Accept edits" },
  { id: "bypassPermissions", name: "Bypass" },
  { id: "plan", name: "Plan" },
];

const PERMISSION_OPTIONS = [
  { optionId: "allow", name: "Allow", kind: "allow_once" },
  { optionId: "always", name: "Always", kind: "allow_always" },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
];

function log(...args) {
  console.error("[acp-test-agent]", ...args);
}

// ---------------------------------------------------------------------------------------------
// stdout
//
// Some scenarios must put on the wire what the SDK would never send (bad JSON, unknown update
// kinds) or send it faster than one awaited notify() per message allows. Both the SDK and those
// raw writes go through this one queue, so a raw line written after an awaited notify() lands
// after it on the wire, and no two writes interleave.

let stdoutTail = Promise.resolve();

function writeStdout(data) {
  const written = stdoutTail.then(
    () =>
      new Promise((resolve, reject) => {
        process.stdout.write(data, (err) => (err ? reject(err) : resolve()));
      }),
  );
  stdoutTail = written.catch(() => {});
  return written;
}

function rawLine(message) {
  return writeStdout((typeof message === "string" ? message : JSON.stringify(message)) + "\n");
}

function updateLine(sessionId, update) {
  return JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update } }) + "\n";
}

// A client that goes away closes our stdout: there is nobody left to talk to.
process.stdout.on("error", (err) => {
  log("stdout:", err.message);
  process.exit(0);
});

// ---------------------------------------------------------------------------------------------
// Sessions

/** sessionId -> { id, cwd, mode, history: [{role, text}], setup: {method, params}, turn } */
const sessions = new Map();

function sessionFile(id) {
  // The id comes from the client: keep it from naming a file outside the state directory.
  if (!/^[A-Za-z0-9._-]+$/.test(id) || id.startsWith(".")) return null;
  return path.join(STATE_DIR, `${id}.json`);
}

function save(session) {
  const { id, cwd, mode, history, setup } = session;
  fs.mkdirSync(STATE_DIR, { recursive: true });
  fs.writeFileSync(sessionFile(id), JSON.stringify({ id, cwd, mode, history, setup }, null, 1));
}

/** The session from this process, or else from its file (another process made it), or null. */
function find(id) {
  if (sessions.has(id)) return sessions.get(id);
  const file = sessionFile(id);
  if (!file || !fs.existsSync(file)) return null;
  const stored = JSON.parse(fs.readFileSync(file, "utf8"));
  const session = { ...stored, turn: null };
  sessions.set(id, session);
  return session;
}

/** Only a session made or loaded/resumed on this connection takes prompts, as the protocol says. */
const active = new Set();

function activeSession(id) {
  const session = active.has(id) ? sessions.get(id) : null;
  if (!session) throw acp.RequestError.sessionNotFound(id);
  return session;
}

function modeState(session) {
  return { currentModeId: session.mode, availableModes: MODES };
}

// ---------------------------------------------------------------------------------------------
// A prompt turn

class Turn {
  constructor(session, client, requestSignal) {
    this.session = session;
    this.client = client;
    // session/cancel aborts this; so does a protocol-level $/cancel_request of the prompt request.
    // (Forwarded by hand: a composite AbortSignal.any signal was seen never to fire in this
    // program under Node 20, which would hang a turn that waits on it.)
    this.abort = new AbortController();
    this.signal = this.abort.signal;
    if (requestSignal.aborted) this.abort.abort();
    else requestSignal.addEventListener("abort", () => this.abort.abort(), { once: true });
    this.reply = "";
  }

  get cancelled() {
    return this.signal.aborted;
  }

  update(update) {
    return this.client.notify("session/update", { sessionId: this.session.id, update });
  }

  /** An agent message chunk; its text becomes part of the reply kept in the session's history. */
  async say(text) {
    this.reply += text;
    await this.update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
  }

  async think(text) {
    await this.update({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text } });
  }

  /** Writes raw protocol lines, then waits for stdout so later SDK messages come after them. */
  raw(...lines) {
    return writeStdout(lines.join(""));
  }

  end(stopReason = "end_turn") {
    return { stopReason: this.cancelled ? "cancelled" : stopReason };
  }
}

/** Splits text in two near its middle, on a space when there is one, so it streams as 2 chunks. */
function halves(text) {
  const middle = Math.ceil(text.length / 2);
  let cut = text.lastIndexOf(" ", middle);
  if (cut <= 0) cut = text.indexOf(" ", middle);
  cut = cut > 0 ? cut + 1 : middle;
  return [text.slice(0, cut), text.slice(cut)];
}

/** Resolves after ms, or early (to true) when the signal aborts. */
async function wait(ms, signal) {
  try {
    await sleep(ms, undefined, { signal });
    return false;
  } catch {
    return true;
  }
}

/**
 * Resolves with the promise's value, or with onAbort() when the signal aborts (or timeoutMs
 * passes) first.
 */
function unlessAborted(promise, signal, onAbort, timeoutMs) {
  if (signal.aborted) return Promise.resolve(onAbort());
  return new Promise((resolve, reject) => {
    const abandon = () => {
      clearTimeout(timer);
      resolve(onAbort());
    };
    const timer = timeoutMs === undefined ? undefined : setTimeout(abandon, timeoutMs);
    const settle = (finish) => (value) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", abandon);
      finish(value);
    };
    signal.addEventListener("abort", abandon, { once: true });
    promise.then(settle(resolve), settle(reject));
  });
}

const scenarios = {
  async say(turn, args) {
    for (const chunk of halves(args)) await turn.say(chunk);
    return turn.end();
  },

  async think(turn) {
    await turn.think("Thinking about ");
    await turn.think("the request.");
    await turn.say("done");
    return turn.end();
  },

  async history(turn, _args, previousPrompts) {
    await turn.say(previousPrompts.join(" | "));
    return turn.end();
  },

  async mode(turn) {
    await turn.say(turn.session.mode);
    return turn.end();
  },

  async "echo-setup"(turn) {
    // Everything, env values and headers included: tests check that what agentbox passes in
    // (an MCP server's token, say) arrives intact.
    await turn.say(JSON.stringify(turn.session.setup));
    return turn.end();
  },

  async write(turn, args) {
    const space = args.indexOf(" ");
    const relpath = space < 0 ? args : args.slice(0, space);
    const content = space < 0 ? "" : args.slice(space + 1);
    const file = path.resolve(turn.session.cwd, relpath);
    const toolCallId = `write-${randomUUID()}`;
    const title = `Write ${relpath}`;
    const rawInput = { path: relpath, content };

    await turn.update({ sessionUpdate: "tool_call", toolCallId, title, kind: "edit", status: "pending", rawInput });

    // On session/cancel the client owes us a "cancelled" outcome, but the turn must end promptly
    // even if it never sends one: the request is abandoned, its late answer ignored.
    let outcome;
    try {
      const answer = await unlessAborted(
        turn.client.request("session/request_permission", {
          sessionId: turn.session.id,
          toolCall: { toolCallId, title, kind: "edit", rawInput },
          options: PERMISSION_OPTIONS,
        }),
        turn.signal,
        () => ({ outcome: { outcome: "cancelled" } }),
      );
      outcome = answer.outcome;
    } catch (err) {
      log("session/request_permission failed:", err.code, err.message);
      outcome = { outcome: "cancelled" };
    }
    const allowed =
      outcome.outcome === "selected" && (outcome.optionId === "allow" || outcome.optionId === "always");

    if (allowed && !turn.cancelled) {
      const oldText = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : null;
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, content);
      await turn.update({
        sessionUpdate: "tool_call_update",
        toolCallId,
        status: "completed",
        content: [
          { type: "diff", path: file, oldText, newText: content },
          { type: "content", content: { type: "text", text: `wrote ${content.length} characters to ${relpath}` } },
        ],
      });
      await turn.say("wrote");
      return turn.end();
    }
    await turn.update({
      sessionUpdate: "tool_call_update",
      toolCallId,
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: "rejected" } }],
    });
    await turn.say("not written");
    return turn.end(outcome.outcome === "cancelled" ? "cancelled" : "end_turn");
  },

  async "all-kinds"(turn) {
    // One of each SessionUpdate variant of schema/v1/schema.json, in schema order. notice and the
    // compaction updates are meant only for clients that advertise session.notices /
    // session.compaction; they are sent regardless, since the point is to show the client every
    // kind it may meet.
    const text = (t) => ({ type: "text", text: t });
    const toolCallId = `read-${randomUUID()}`;
    const compactionId = `compaction-${randomUUID()}`;
    const readme = path.join(turn.session.cwd, "README.md");
    const updates = [
      { sessionUpdate: "user_message_chunk", content: text("all-kinds user chunk") },
      { sessionUpdate: "agent_message_chunk", content: text("all-kinds agent chunk") },
      { sessionUpdate: "agent_thought_chunk", content: text("all-kinds thought chunk") },
      {
        sessionUpdate: "tool_call",
        toolCallId,
        title: "Read README.md",
        kind: "read",
        status: "in_progress",
        rawInput: { path: readme },
        locations: [{ path: readme, line: 1 }],
      },
      {
        sessionUpdate: "tool_call_update",
        toolCallId,
        status: "completed",
        content: [{ type: "content", content: text("README contents") }],
        rawOutput: { bytes: 15 },
      },
      {
        sessionUpdate: "plan",
        entries: [
          { content: "Read the code", priority: "high", status: "completed" },
          { content: "Write the fix", priority: "medium", status: "in_progress" },
        ],
      },
      {
        sessionUpdate: "available_commands_update",
        availableCommands: [
          { name: "review", description: "Review the changes", input: { hint: "what to review" } },
          { name: "test", description: "Run the tests" },
        ],
      },
      { sessionUpdate: "current_mode_update", currentModeId: turn.session.mode },
      {
        sessionUpdate: "config_option_update",
        configOptions: [
          {
            id: "model",
            name: "Model",
            type: "select",
            currentValue: "test-model",
            options: [
              { value: "test-model", name: "Test model" },
              { value: "other-model", name: "Other model" },
            ],
          },
        ],
      },
      { sessionUpdate: "session_info_update", title: "all-kinds", updatedAt: new Date().toISOString() },
      { sessionUpdate: "usage_update", used: 1234, size: 200000, cost: { amount: 0.01, currency: "USD" } },
      { sessionUpdate: "notice", severity: "info", title: "all-kinds notice" },
      { sessionUpdate: "compaction_update", compactionId, status: "in_progress" },
      { sessionUpdate: "compaction_summary_chunk", compactionId, content: text("all-kinds summary") },
    ];
    turn.reply += "all-kinds agent chunk";
    for (const update of updates) await turn.update(update);
    return turn.end();
  },

  async "unknown-kind"(turn) {
    await turn.raw(updateLine(turn.session.id, { sessionUpdate: "future_kind_x", payload: { a: 1 } }));
    return turn.end();
  },

  async malformed(turn) {
    await turn.raw(
      "not json at all\n",
      '{"jsonrpc":"2.0","id":999,"result":{}}\n', // a response to a request nobody sent
      '{"jsonrpc":"2.0","method":"session/update"}\n', // a notification without params
    );
    await turn.say("survived");
    return turn.end();
  },

  async bigline(turn) {
    const text = "x".repeat(10 * 1024 * 1024);
    await turn.raw(updateLine(turn.session.id, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } }));
    await turn.say("after");
    return turn.end();
  },

  async flood(turn, args) {
    // One notify() per message costs a promise round trip each; writing the identical lines in
    // batches keeps 100000 updates to well under a second of agent time.
    const count = Number.parseInt(args, 10) >= 0 ? Number.parseInt(args, 10) : 100000;
    const line = updateLine(turn.session.id, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "." } });
    const batch = 1000;
    for (let sent = 0; sent < count && !turn.cancelled; sent += batch) {
      await turn.raw(line.repeat(Math.min(batch, count - sent)));
    }
    return turn.end();
  },

  async fs(turn) {
    const request = turn.client.request("fs/read_text_file", {
      sessionId: turn.session.id,
      path: path.join(turn.session.cwd, "README.md"),
    });
    // A client that ignores the request must not hang the turn.
    const unanswered = Symbol("unanswered");
    let report;
    try {
      const result = await unlessAborted(request, turn.signal, () => unanswered, 10000);
      report =
        result === unanswered
          ? "fs/read_text_file got no answer"
          : `fs/read_text_file answered: ${JSON.stringify(result)}`;
    } catch (err) {
      report = `fs/read_text_file failed: ${err.code} ${err.message}`;
    }
    await turn.say(report);
    return turn.end();
  },

  async error() {
    throw new acp.RequestError(-32000, "model API error: 401 invalid x-api-key");
  },

  async refuse(turn) {
    return turn.end("refusal");
  },

  async maxtokens(turn) {
    return turn.end("max_tokens");
  },

  async slow(turn, args) {
    const ms = Number.parseInt(args, 10) >= 0 ? Number.parseInt(args, 10) : 1000;
    await turn.say("started");
    if (await wait(ms, turn.signal)) return turn.end();
    await turn.say("finished");
    return turn.end();
  },

  async "pid-slow"(turn, args) {
    await turn.say(`pid ${process.pid} `);
    return scenarios.slow(turn, args);
  },

  async "exit-early"() {
    await stdoutTail;
    log("exit-early: leaving without an answer");
    process.exit(0);
  },
};

async function prompt({ params, client, signal }) {
  const session = activeSession(params.sessionId);
  if (session.turn) throw acp.RequestError.invalidRequest(undefined, "a prompt is already in progress");

  const text = params.prompt
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n")
    .trim();
  const space = text.search(/\s/);
  const name = space < 0 ? text : text.slice(0, space);
  const args = space < 0 ? "" : text.slice(space + 1).trim();

  const previousPrompts = session.history.filter((entry) => entry.role === "user").map((entry) => entry.text);
  // The prompt is kept before the turn runs, so a turn that dies (exit-early) is still remembered.
  session.history.push({ role: "user", text });
  save(session);

  const turn = new Turn(session, client, signal);
  session.turn = turn;
  try {
    const scenario = Object.hasOwn(scenarios, name) ? scenarios[name] : null;
    if (!scenario) {
      await turn.say("unknown scenario");
      return turn.end();
    }
    return await scenario(turn, args, previousPrompts);
  } finally {
    session.turn = null;
    // Raw lines (bigline, flood, ...) are not kept: replaying them on session/load would only
    // repeat what those scenarios already test.
    session.history.push({ role: "agent", text: turn.reply });
    save(session);
  }
}

// ---------------------------------------------------------------------------------------------
// The connection

const app = acp
  .agent({ name: "acp-test-agent" })
  .onRequest("initialize", () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: CAN_LOAD,
      sessionCapabilities: CAN_RESUME ? { resume: {} } : {},
    },
    agentInfo: { name: "acp-test-agent", version: "1.0.0" },
    authMethods: [],
  }))
  .onRequest("session/new", ({ params }) => {
    const session = {
      id: randomUUID(),
      cwd: params.cwd,
      mode: "default",
      history: [],
      setup: { method: "session/new", params },
      turn: null,
    };
    sessions.set(session.id, session);
    active.add(session.id);
    save(session);
    return { sessionId: session.id, modes: modeState(session) };
  })
  .onRequest("session/load", async ({ params, client }) => {
    if (!CAN_LOAD) throw acp.RequestError.methodNotFound("session/load");
    const session = reopen(params, "session/load");
    for (const entry of session.history) {
      await client.notify("session/update", {
        sessionId: session.id,
        update: {
          sessionUpdate: entry.role === "user" ? "user_message_chunk" : "agent_message_chunk",
          content: { type: "text", text: entry.text },
        },
      });
    }
    return { modes: modeState(session) };
  })
  .onRequest("session/resume", ({ params }) => {
    if (!CAN_RESUME) throw acp.RequestError.methodNotFound("session/resume");
    const session = reopen(params, "session/resume");
    return { modes: modeState(session) };
  })
  .onRequest("session/set_mode", async ({ params, client }) => {
    const session = activeSession(params.sessionId);
    if (!MODES.some((mode) => mode.id === params.modeId)) {
      throw acp.RequestError.invalidParams({ modeId: params.modeId }, `unknown mode ${params.modeId}`);
    }
    session.mode = params.modeId;
    save(session);
    await client.notify("session/update", {
      sessionId: session.id,
      update: { sessionUpdate: "current_mode_update", currentModeId: session.mode },
    });
    return {};
  })
  .onRequest("session/prompt", prompt)
  .onNotification("session/cancel", ({ params }) => {
    sessions.get(params.sessionId)?.turn?.abort.abort();
  });

/** Makes a stored session active on this connection (session/load, session/resume). */
function reopen(params, method) {
  const session = find(params.sessionId);
  if (!session) throw acp.RequestError.sessionNotFound(params.sessionId);
  session.cwd = params.cwd;
  session.setup = { method, params };
  active.add(session.id);
  save(session);
  return session;
}

const output = new WritableStream({ write: (chunk) => writeStdout(chunk) });
const connection = app.connect(acp.ndJsonStream(output, Readable.toWeb(process.stdin)));

// The connection closes when stdin ends (the client is done or gone). Let what is queued for
// stdout go out, then leave without waiting for turns still running.
connection.closed.then(
  async () => {
    await stdoutTail;
    process.exit(0);
  },
  async (err) => {
    log("connection failed:", err?.message ?? err);
    await stdoutTail;
    process.exit(0);
  },
);
