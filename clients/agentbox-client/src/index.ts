export { AgentboxClient, type AgentboxClientOptions } from "./client.js";
export { AgentboxProblem, isProblem, type ProblemBody } from "./problem.js";
export { parseSse, type SseEvent } from "./sse.js";
export {
  resumableEvents,
  compareEventIds,
  StreamInterruptedError,
  type RunEvent,
  type ReconnectOptions,
  type OpenStream,
} from "./events.js";
export { Sandboxes, SandboxFiles, SandboxProcesses, SandboxGit, type Signal } from "./sandboxes.js";
export { Runs, type RunListOptions } from "./runs.js";
export { Agents } from "./agents.js";
export type * from "./types.js";
export type { components, paths, operations } from "./generated/openapi.js";
