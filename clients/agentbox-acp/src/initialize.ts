/**
 * The `initialize` answer, kept free of imports so the command can send it before the protocol
 * library has loaded (see `cli.ts`): an editor waits for this answer before it shows the agent.
 */

/** The package's version, as `agentInfo.version` reports it. */
export const VERSION = "0.1.0";

/** ACP v1 is the only version spoken; an editor asking for another gets 1 and decides. */
export const PROTOCOL_VERSION = 1;

/**
 * What the front door offers: sessions are durable threads, so they can be listed, loaded
 * (transcript replayed), resumed (no replay) and closed (stop following; the run goes on).
 * Prompts are text only (and `resource_link`, which every agent must take, as its URI): the
 * agent runs in a sandbox that cannot read the editor's files, images or audio. No `fs` or
 * `terminal` is ever asked of the editor, and no authentication: the token comes from the
 * command's environment.
 */
export function initializeResult(): {
  protocolVersion: number;
  agentCapabilities: Record<string, unknown>;
  agentInfo: { name: string; title: string; version: string };
  authMethods: never[];
} {
  return {
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: false, audio: false, embeddedContext: false },
      mcpCapabilities: { http: false, sse: false },
      sessionCapabilities: { list: {}, resume: {}, close: {} },
    },
    agentInfo: { name: "agentbox-acp", title: "agentbox", version: VERSION },
    authMethods: [],
  };
}
