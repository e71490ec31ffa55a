/**
 * Every non-2xx answer of the API is an RFC 9457 problem document; the client throws it as an
 * {@link AgentboxProblem}. Answers that are no problem (a proxy's HTML 502, an empty 503) are
 * thrown as a problem too, with `code` `http-<status>`, so callers branch on one type.
 * Network failures are not answers and stay the `fetch` TypeError.
 */

/** The members of a problem document the client names; the rest are in {@link AgentboxProblem.body}. */
export interface ProblemBody {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  code?: string;
  field?: string;
  [member: string]: unknown;
}

export class AgentboxProblem extends Error {
  /** The HTTP status (for a problem sent inside a committed `200`, the problem's own `status`). */
  readonly status: number;
  /** The problem's `code` (`not-found`, `invalid-request`, …), or `http-<status>` when the body is no problem. */
  readonly code: string;
  readonly title: string;
  readonly detail?: string;
  /** The offending request field of a `400` (`workspace.setup[1][0]`, `signal`, …). */
  readonly field?: string;
  readonly type?: string;
  /** The whole parsed problem (with `ceiling`, `quota`, `capability`, `reason`, … where sent). */
  readonly body: ProblemBody;

  constructor(status: number, body: ProblemBody) {
    const code = typeof body.code === "string" && body.code !== "" ? body.code : `http-${status}`;
    const title = typeof body.title === "string" ? body.title : `HTTP ${status}`;
    const detail = typeof body.detail === "string" ? body.detail : undefined;
    const field = typeof body.field === "string" ? body.field : undefined;
    super(`${status} ${code}: ${detail ?? title}${field !== undefined ? ` (field ${field})` : ""}`);
    this.name = "AgentboxProblem";
    this.status = status;
    this.code = code;
    this.title = title;
    this.detail = detail;
    this.field = field;
    this.type = typeof body.type === "string" ? body.type : undefined;
    this.body = body;
  }

  /** Reads a failed response's body into a problem (never throws on a body that is no JSON). */
  static async fromResponse(response: Response): Promise<AgentboxProblem> {
    let text = "";
    try {
      text = await response.text();
    } catch {
      // a body cut off: the status alone still tells what happened
    }
    return AgentboxProblem.fromText(response.status, text, response.statusText);
  }

  /** A problem from a status and a body text; a text that is no JSON object becomes the detail. */
  static fromText(status: number, text: string, statusText = ""): AgentboxProblem {
    const parsed = parseObject(text);
    if (parsed) return new AgentboxProblem(status, parsed);
    const detail = text.trim().slice(0, 500);
    const body: ProblemBody = { title: statusText || `HTTP ${status}`, status };
    if (detail !== "") body.detail = detail;
    return new AgentboxProblem(status, body);
  }
}

/** True for an {@link AgentboxProblem}, optionally of one `code`. */
export function isProblem(error: unknown, code?: string): error is AgentboxProblem {
  return error instanceof AgentboxProblem && (code === undefined || error.code === code);
}

function parseObject(text: string): ProblemBody | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as ProblemBody) : undefined;
  } catch {
    return undefined;
  }
}
