// node tanstack-client-tool.mjs '{"baseUrl","token","agentId","threadId","prompt","tool":{"name","description","parameters"},"output","secrets?","approve?"}'
// @tanstack/ai-client's ChatClient, unmodified, with one client tool: the agent's call of it ends
// the first AG-UI run with an interrupt; the client runs the tool (returning `output`) and posts
// the next RunAgentInput of the thread with the result, whose stream is the agent's continuation.
// With `approve` (true|false) the client instead answers approval interrupts with that decision, as
// a chat UI does: through the tool call the client marked as awaiting approval
// (addToolApprovalResponse), or, for an interrupt tied to no tool call, through its interrupts API.
// Prints {"executed", "runs", "failures", "errors", "approvals"}: the inputs the tool ran with, the
// chunks of each AG-UI run (one array per run), what agui-check.mjs found wrong with each run, and
// each approval answered ({"id","via","toolCallId?",…}).
import { ChatClient, fetchServerSentEvents } from "@tanstack/ai-client";
import { checkStream } from "./agui-check.mjs";
import { agentUrl, emit, fail, options } from "./script-io.mjs";

const o = options(["baseUrl", "token", "agentId", "threadId", "prompt"]);
const executed = [];
const approvals = [];
const errors = [];
const chunks = [];
const tools = o.tool
  ? [
      {
        name: o.tool.name,
        description: o.tool.description ?? "",
        inputSchema: o.tool.parameters ?? { type: "object" },
        execute: async (input) => {
          executed.push(input);
          return o.output;
        },
      },
    ]
  : [];
let client;
client = new ChatClient({
  connection: fetchServerSentEvents(agentUrl(o.baseUrl, o.agentId), {
    headers: { Authorization: `Bearer ${o.token}` },
  }),
  threadId: o.threadId,
  forwardedProps: { agentbox: { secrets: o.secrets ?? {} } },
  tools,
  onChunk: (chunk) => {
    chunks.push(chunk);
    if (
      o.approve !== undefined &&
      chunk.type === "RUN_FINISHED" &&
      chunk.outcome?.type === "interrupt"
    ) {
      // Answer once the client has taken the interrupt in (after this chunk is processed).
      setTimeout(() => {
        const asked = client
          .getMessages()
          .flatMap((m) => m.parts)
          .filter((p) => p.type === "tool-call" && p.state === "approval-requested" && p.approval);
        for (const p of asked) {
          approvals.push({ id: p.approval.id, via: "tool-call", toolCallId: p.id, toolName: p.name });
          client.addToolApprovalResponse({ id: p.approval.id, approved: o.approve });
        }
        if (asked.length > 0) return;
        for (const i of client.getInterrupts()) {
          approvals.push({ id: i.id, via: "interrupts", kind: i.kind, reason: i.reason, canResolve: i.canResolve });
          if (typeof i.resolveInterrupt === "function" && i.canResolve) {
            i.resolveInterrupt({ approved: o.approve });
          }
        }
      }, 50);
    }
  },
  onError: (e) => errors.push(String(e?.message ?? e)),
});

const deadline = Date.now() + (o.timeoutMs ?? 240000);
try {
  await client.sendMessage(o.prompt);
  // The continuation is posted by the client itself once the tool ran (or the approval was given).
  while (Date.now() < deadline) {
    const finished = chunks.filter((c) => c.type === "RUN_FINISHED" || c.type === "RUN_ERROR");
    const last = finished[finished.length - 1];
    if (
      last &&
      (last.type === "RUN_ERROR" || last.outcome?.type !== "interrupt") &&
      !client.getIsLoading?.()
    ) {
      break;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const runs = [];
  for (const c of chunks) {
    if (c.type === "RUN_STARTED" || runs.length === 0) runs.push([]);
    runs[runs.length - 1].push(c);
  }
  const failures = [];
  for (const [i, run] of runs.entries()) {
    for (const f of await checkStream(run)) failures.push({ run: i, ...f });
  }
  emit({ executed, runs, failures, errors, approvals });
  process.exit(0);
} catch (e) {
  fail(e);
}
