// node tanstack-hydrate.mjs '{"baseUrl","token","agentId","threadId"}'
// Loads a thread through @tanstack/ai-client's fetchServerSentEvents(...).hydrate, unmodified
// (GET ?threadId=). Prints what the client made of it: {"messages", "activeRun", "interrupts"}.
import { fetchServerSentEvents } from "@tanstack/ai-client";
import { agentUrl, emit, fail, options } from "./script-io.mjs";

const o = options(["baseUrl", "token", "agentId", "threadId"]);
try {
  const adapter = fetchServerSentEvents(agentUrl(o.baseUrl, o.agentId), {
    headers: { Authorization: `Bearer ${o.token}` },
  });
  const { messages, activeRun, interrupts } = await adapter.hydrate(o.threadId);
  emit({ messages, activeRun, interrupts });
} catch (e) {
  fail(e);
}
