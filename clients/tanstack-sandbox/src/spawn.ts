import type { ProcessOptions, SpawnHandle } from "@tanstack/ai-sandbox";
import type { AgentboxClient } from "agentbox-client";
import { requireCapability, signalName, translated } from "./errors.js";
import { TextQueue } from "./queue.js";
import type { AgentboxSandboxCapabilities } from "./capabilities.js";

/** A {@link SpawnHandle} that also names the process as agentbox does. */
export interface AgentboxSpawnHandle extends SpawnHandle {
  /** agentbox's id of the process (`pid` is a number local to this client, as TanStack wants one). */
  readonly processId: string;
}

let nextLocalPid = 1;

/**
 * Starts a background process and follows its output over one SSE stream, split into the
 * `stdout` and `stderr` iterables; `wait()` resolves with the exit code the stream ends with.
 *
 * The output stream is opened right after the start answers, and agentbox replays a late
 * subscriber's buffered output first, so output written before the subscription is not lost.
 * A stream that ends without an `exit` (the server went away) rejects `wait()` rather than
 * inventing an exit code.
 */
export async function spawnProcess(
  ab: AgentboxClient,
  key: string,
  capabilities: AgentboxSandboxCapabilities,
  command: string,
  options: ProcessOptions = {},
): Promise<AgentboxSpawnHandle> {
  requireCapability(capabilities.backgroundProcesses, "backgroundProcesses");
  const started = await translated(() =>
    ab.sandboxes.processes.start(key, { command, cwd: options.cwd, env: options.env }),
  );
  const processId = started.pid;
  const stdout = new TextQueue();
  const stderr = new TextQueue();
  const follow = new AbortController();

  const exited = (async () => {
    try {
      for await (const output of ab.sandboxes.processes.output(key, processId, { signal: follow.signal })) {
        if (output.stream === "stdout") stdout.push(output.data);
        else if (output.stream === "stderr") stderr.push(output.data);
        else if (output.stream === "exit") return output.exitCode;
      }
      throw new Error(`process ${processId}: its output ended before it exited`);
    } finally {
      stdout.close();
      stderr.close();
    }
  })();
  // a caller that never calls wait() must not see an unhandled rejection
  exited.catch(() => undefined);

  const kill = async (signal?: NodeJS.Signals | number): Promise<void> => {
    requireCapability(capabilities.killableProcesses, "killableProcesses");
    await translated(() =>
      ab.sandboxes.processes.kill(key, processId, signal === undefined ? undefined : signalName(signal)),
    );
  };

  if (options.signal) {
    const onAbort = () => void kill().catch(() => undefined);
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener("abort", onAbort, { once: true });
    void exited.finally(() => options.signal?.removeEventListener("abort", onAbort)).catch(() => undefined);
  }

  return {
    pid: nextLocalPid++,
    processId,
    stdout,
    stderr,
    stdin: {
      // Tried even where `writableStdin` is false: the server decides, and refuses with 422
      // (→ UnsupportedCapabilityError) where a sandbox cannot take stdin.
      write: (data) => translated(() => ab.sandboxes.processes.stdin(key, processId, data, { eof: false })),
      end: () => translated(() => ab.sandboxes.processes.stdin(key, processId, "", { eof: true })),
    },
    wait: () => exited,
    kill,
  };
}
