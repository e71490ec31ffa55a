// node tanstack-connect.mjs '{"baseUrl","token","agentId","threadId","runId","prompt","cutAfterContents?"}'
// Starts a run through @tanstack/ai-client's fetchServerSentEvents adapter, unmodified, through
// a proxy that cuts the first connection once `cutAfterContents` TEXT_MESSAGE_CONTENT chunks went
// through (default 2). The adapter must reconnect on its own with Last-Event-ID and deliver every
// chunk once. Prints {"chunks", "failures", "connections", "cut", "bytesBeforeCut"}.
import { fetchServerSentEvents } from "@tanstack/ai-client";
import { checkStream } from "./agui-check.mjs";
import { startCuttingProxy } from "./cutting-proxy.mjs";
import { agentUrl, deadline, emit, fail, options } from "./script-io.mjs";

const o = options(["baseUrl", "token", "agentId", "threadId", "runId", "prompt"]);
const cutAfter = o.cutAfterContents ?? 2;
const proxy = await startCuttingProxy(
  new URL(o.baseUrl),
  (text) => text.split('"TEXT_MESSAGE_CONTENT"').length - 1 >= cutAfter,
);
try {
  const adapter = fetchServerSentEvents(agentUrl(proxy.url, o.agentId), {
    headers: { Authorization: `Bearer ${o.token}` },
  });
  const messages = [
    { id: `${o.runId}-user`, role: "user", parts: [{ type: "text", content: o.prompt }] },
  ];
  const signal = deadline(o.timeoutMs ?? 120000);
  const chunks = [];
  for await (const chunk of adapter.connect(messages, {}, signal, {
    threadId: o.threadId,
    runId: o.runId,
  })) {
    chunks.push(chunk);
  }
  if (signal.aborted) throw signal.reason;
  emit({
    chunks,
    failures: await checkStream(chunks),
    connections: proxy.state.connections,
    cut: proxy.state.cut,
    bytesBeforeCut: proxy.state.bytesBeforeCut,
  });
} catch (e) {
  fail(e);
} finally {
  await proxy.close();
}
