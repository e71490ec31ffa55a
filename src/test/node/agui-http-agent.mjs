// node agui-http-agent.mjs '{"baseUrl","token","agentId","threadId","runId","prompt","forwardedProps?"}'
// Runs the agent once through @ag-ui/client's HttpAgent, unmodified: POST of a RunAgentInput,
// the SSE answer parsed, verified and applied by the client. Prints
// {"newMessages", "chunks", "failures"}: the messages the run added, the chunks as they came off
// the wire (before the client's own checks) and what agui-check.mjs found wrong with them.
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
const chunks = [];
// A middleware sees the parsed events before the client's verification and transformations.
agent.use((input, next) => next.run(input).pipe(tap((event) => chunks.push(event))));
try {
  const result = await agent.runAgent({ runId: o.runId, forwardedProps: o.forwardedProps ?? {} });
  emit({ newMessages: result.newMessages, chunks, failures: await checkStream(chunks) });
} catch (e) {
  fail(e);
}
