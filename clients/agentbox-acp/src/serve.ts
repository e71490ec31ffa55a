/**
 * Serves the front door on a pair of byte streams (the command's stdin and stdout). Loaded by
 * `cli.ts` after it has read its configuration, so that `initialize` can be answered while this
 * module's imports (the protocol library, the client) load.
 */
import * as acp from "@agentclientprotocol/sdk";
import { AgentboxClient } from "agentbox-client";
import { FrontDoor, type AgentboxPort } from "./front-door.js";
import type { CommandOptions } from "./options.js";

export interface Served {
  frontDoor: FrontDoor;
  /** Resolves when the editor has gone (its end of the stream closed) and every stream is let go. */
  closed: Promise<void>;
}

export function serve(
  options: CommandOptions,
  output: WritableStream<Uint8Array>,
  input: ReadableStream<Uint8Array>,
  settings: { initializeAnswered?: boolean; log?: (message: string) => void } = {},
): Served {
  const client = new AgentboxClient({ baseUrl: options.baseUrl, token: options.token });
  const frontDoor = new FrontDoor({
    client: client as unknown as AgentboxPort,
    agentId: options.agentId,
    log: settings.log,
    initializeAnswered: settings.initializeAnswered,
  });
  const connection = frontDoor.app.connect(acp.ndJsonStream(output, input));
  const closed = connection.closed.then(
    () => frontDoor.detachAll(),
    () => frontDoor.detachAll(),
  );
  return { frontDoor, closed };
}
