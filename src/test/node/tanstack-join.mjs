// node tanstack-join.mjs '{"baseUrl","token","agentId","runId"}'
// Joins a run from its start through @tanstack/ai-client's fetchServerSentEvents(...).joinRun,
// unmodified (GET ?offset=-1&runId=, no Accept header). Prints {"chunks", "failures"}.
import { fetchServerSentEvents } from "@tanstack/ai-client";
import { checkStream } from "./agui-check.mjs";
import { agentUrl, deadline, emit, fail, options } from "./script-io.mjs";

const o = options(["baseUrl", "token", "agentId", "runId"]);
try {
  const adapter = fetchServerSentEvents(agentUrl(o.baseUrl, o.agentId), {
    headers: { Authorization: `Bearer ${o.token}` },
  });
  const signal = deadline(o.timeoutMs ?? 120000);
  const chunks = [];
  for await (const chunk of adapter.joinRun(o.runId, signal)) {
    chunks.push(chunk);
  }
  if (signal.aborted) throw signal.reason;
  emit({ chunks, failures: await checkStream(chunks) });
} catch (e) {
  fail(e);
}
