// node agui-client-tool.mjs '{"baseUrl","token","agentId","threadId","runId","prompt","tool":{"name","description","parameters"},"output","secrets?","answer?"}'
// @ag-ui/client's HttpAgent, unmodified, with one client tool: the first run ends with an
// interrupt outcome (agent.pendingInterrupts); the script runs the tool on the interrupt's input
// and answers with the next run's `resume` entry (payload {"result": output}), or with `answer`
// as the payload when given (an approval). Prints {"interrupts", "executed", "runs", "failures",
// "newMessages"}: each run's chunks as they came off the wire and agui-check.mjs's findings.
import { HttpAgent } from "@ag-ui/client";
import { tap } from "rxjs";
import { checkStream } from "./agui-check.mjs";
import { agentUrl, emit, fail, options } from "./script-io.mjs";

const o = options(["baseUrl", "token", "agentId", "threadId", "runId", "prompt"]);
const agent = new HttpAgent({
  url: agentUrl(o.baseUrl, o.agentId),
  headers: { Authorization: `Bearer ${o.token}` },
  threadId: o.threadId,
  initialMessages: [{ id: `${o.runId}-user`, role: "user", content: o.prompt }],
});
let chunks = [];
agent.use((input, next) => next.run(input).pipe(tap((event) => chunks.push(event))));
const tools = o.tool
  ? [{ name: o.tool.name, description: o.tool.description ?? "", parameters: o.tool.parameters }]
  : [];
const forwardedProps = { agentbox: { secrets: o.secrets ?? {} } };
try {
  const runs = [];
  const failures = [];
  const executed = [];
  await agent.runAgent({ runId: o.runId, tools, forwardedProps });
  runs.push(chunks);
  const interrupts = agent.pendingInterrupts ?? [];
  if (interrupts.length === 0) throw new Error("the first run ended without an interrupt");
  const resume = interrupts.map((i) => {
    if (o.answer !== undefined) return { interruptId: i.id, status: "resolved", payload: o.answer };
    executed.push(i.metadata?.input);
    return { interruptId: i.id, status: "resolved", payload: { result: o.output } };
  });
  chunks = [];
  const result = await agent.runAgent({ runId: `${o.runId}-2`, tools, forwardedProps, resume });
  runs.push(chunks);
  for (const [i, run] of runs.entries()) {
    for (const f of await checkStream(run)) failures.push({ run: i, ...f });
  }
  emit({ interrupts, executed, runs, failures, newMessages: result.newMessages });
} catch (e) {
  fail(e);
}
