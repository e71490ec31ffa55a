#!/usr/bin/env node
/**
 * `agentbox-acp --agent <agentId>`: the ACP front door as a command an editor starts.
 *
 * stdout carries protocol lines only; diagnostics go to stderr. Start-up is kept short because an
 * editor waits for the `initialize` answer before it shows the agent: the configuration is read
 * (a mistake exits 2 before any protocol line), then the first line from the editor —
 * `initialize` in every ACP session — is answered here from a module with no imports, and only
 * then do the protocol library and the client load. The service is not called before a session
 * needs it.
 */
import { readFileSync } from "node:fs";
import { Writable } from "node:stream";
import { initializeResult } from "./initialize.js";
import { HelpRequested, parseOptions, UsageError, type CommandOptions } from "./options.js";

const log = (message: string) => process.stderr.write(`[agentbox-acp] ${message}\n`);

let options: CommandOptions;
try {
  options = parseOptions(process.argv.slice(2), process.env, (path) => readFileSync(path, "utf8"));
} catch (e) {
  if (e instanceof HelpRequested) {
    process.stderr.write(e.message + "\n");
    process.exit(0);
  }
  if (e instanceof UsageError) {
    process.stderr.write(e.message + "\n");
    process.exit(e.exitCode);
  }
  throw e;
}

/**
 * stdin as a byte stream for the protocol library, with its first line taken out when it is an
 * `initialize` request: that one is answered at once. `answered` settles when the first line
 * is known (or stdin ended without one). Only then does the protocol library load: compiling it
 * takes the main thread for a few hundred milliseconds, which would hold the answer back.
 */
function stdinAfterInitialize(): { input: ReadableStream<Uint8Array>; answered: Promise<boolean> } {
  let settle!: (answered: boolean) => void;
  const answered = new Promise<boolean>((resolve) => (settle = resolve));
  let head: Buffer | undefined = Buffer.alloc(0);
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      process.stdin.on("data", (chunk: Buffer) => {
        if (head === undefined) return controller.enqueue(new Uint8Array(chunk));
        head = Buffer.concat([head, chunk]);
        const newline = head.indexOf(10);
        if (newline < 0) return;
        const line = head.subarray(0, newline).toString("utf8");
        const rest = head.subarray(newline + 1);
        head = undefined;
        let message: { id?: unknown; method?: unknown } | undefined;
        try {
          message = JSON.parse(line);
        } catch {
          message = undefined;
        }
        if (message && message.method === "initialize" && (typeof message.id === "number" || typeof message.id === "string")) {
          process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: initializeResult() }) + "\n");
          settle(true);
          if (rest.length) controller.enqueue(new Uint8Array(rest));
        } else {
          settle(false);
          controller.enqueue(new Uint8Array(Buffer.concat([Buffer.from(line + "\n"), rest])));
        }
      });
      process.stdin.on("end", () => {
        if (head !== undefined && head.length) controller.enqueue(new Uint8Array(head));
        head = undefined;
        settle(false);
        controller.close();
      });
      process.stdin.on("error", (e) => controller.error(e));
    },
  });
  return { input, answered };
}

const { input, answered } = stdinAfterInitialize();
const initializeAnswered = await answered;
const { serve } = await import("./serve.js");
const { closed } = serve(options, Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, input, { initializeAnswered, log });
await closed;
// The editor has gone: every stream was let go (the server detaches durable runs). Nothing is
// left to do; do not wait for idle sockets.
process.exit(0);
