/**
 * Command-line and environment configuration of `agentbox-acp`.
 *
 * Pure: the environment and the file reader are passed in, so the rules are tested without a
 * process. An editor starts the command with a fixed argument list and environment, so every
 * mistake here is reported once, on stderr, with exit code 2, before any protocol line is written.
 */

/** What the front door needs to reach its agent. */
export interface CommandOptions {
  /** The agent's id (`PUT /agents/{agentId}`); every session is one of its threads. */
  agentId: string;
  /** The service's base URL without `/api/v1`, e.g. `http://localhost:9080`. */
  baseUrl: string;
  /** The bearer token, or none (a server in dev mode). */
  token?: string;
}

/** A configuration mistake: the command prints `message` and exits with code 2. */
export class UsageError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export const USAGE = `usage: agentbox-acp --agent <agentId>

An ACP (v1) agent on stdin/stdout, for editors such as Zed and JetBrains, backed by an agentbox
agent. Environment:
  AGENTBOX_URL         the service's base URL, e.g. http://localhost:9080 (required)
  AGENTBOX_TOKEN       the bearer token, or
  AGENTBOX_TOKEN_FILE  a file holding it (its surrounding whitespace is ignored)`;

/** `--help` asked for: print the usage on stderr and exit 0. */
export class HelpRequested extends Error {
  constructor() {
    super(USAGE);
    this.name = "HelpRequested";
  }
}

const AGENT_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

/**
 * Reads `--agent <id>` (or `--agent=<id>`) from `argv` (the arguments after the script) and the
 * service's address and token from `env`. `AGENTBOX_TOKEN` wins over `AGENTBOX_TOKEN_FILE`.
 *
 * @throws UsageError for a missing or malformed agent id, a missing or malformed URL, an unknown
 *   argument, or a token file that cannot be read or is empty.
 * @throws HelpRequested for `--help` / `-h`.
 */
export function parseOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  readText: (path: string) => string,
): CommandOptions {
  let agentId: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--help" || arg === "-h") throw new HelpRequested();
    if (arg === "--agent") {
      agentId = argv[++i];
      if (agentId === undefined) throw new UsageError("agentbox-acp: --agent needs a value\n" + USAGE);
    } else if (arg.startsWith("--agent=")) {
      agentId = arg.slice("--agent=".length);
    } else {
      throw new UsageError(`agentbox-acp: unknown argument ${JSON.stringify(arg)}\n` + USAGE);
    }
  }
  if (!agentId) throw new UsageError("agentbox-acp: --agent <agentId> is required\n" + USAGE);
  if (!AGENT_ID.test(agentId)) {
    throw new UsageError(
      `agentbox-acp: --agent ${JSON.stringify(agentId)} is no agent id (1-200 of A-Z a-z 0-9 . _ -, not starting with .)`,
    );
  }

  const url = env.AGENTBOX_URL?.trim();
  if (!url) throw new UsageError("agentbox-acp: AGENTBOX_URL is required (e.g. http://localhost:9080)\n" + USAGE);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`agentbox-acp: AGENTBOX_URL ${JSON.stringify(url)} is no URL`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new UsageError(`agentbox-acp: AGENTBOX_URL must be http:// or https://, not ${parsed.protocol}`);
  }
  const baseUrl = url.replace(/\/+$/, "").replace(/\/api\/v1$/, "");

  let token = env.AGENTBOX_TOKEN?.trim() || undefined;
  const tokenFile = env.AGENTBOX_TOKEN_FILE?.trim();
  if (!token && tokenFile) {
    let text: string;
    try {
      text = readText(tokenFile);
    } catch (e) {
      throw new UsageError(
        `agentbox-acp: cannot read AGENTBOX_TOKEN_FILE ${JSON.stringify(tokenFile)}: ${(e as Error).message}`,
      );
    }
    token = text.trim();
    if (!token) throw new UsageError(`agentbox-acp: AGENTBOX_TOKEN_FILE ${JSON.stringify(tokenFile)} is empty`);
  }
  return token ? { agentId, baseUrl, token } : { agentId, baseUrl };
}
