// The acceptance check every stream of agentbox must pass: each chunk parses with @ag-ui/core's
// EventSchema, and the whole sequence passes @ag-ui/client's verifyEvents (the check
// HttpAgent.runAgent applies to every stream it reads) and ends with a terminal chunk.
import { EventSchema } from "@ag-ui/core/schemas";
import { verifyEvents } from "@ag-ui/client";
import { from, tap } from "rxjs";

const TERMINAL = new Set(["RUN_FINISHED", "RUN_ERROR"]);

/**
 * Checks one complete stream (chunks in order). Resolves to a list of failures, each
 * {index, message}; an empty list means the stream is valid. Never rejects.
 */
export async function checkStream(chunks) {
  const failures = [];
  if (chunks.length === 0) {
    return [{ index: 0, message: "empty stream" }];
  }
  chunks.forEach((chunk, index) => {
    const parsed = EventSchema.safeParse(chunk);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .map((i) => `${i.path.join(".") || "(chunk)"}: ${i.message}`)
        .join("; ");
      failures.push({ index, message: `EventSchema (${chunk?.type}): ${issues}` });
    }
  });
  // verifyEvents stops at the first violation; `seen` tells which chunk it was on.
  let seen = -1;
  await new Promise((resolve) => {
    from(chunks)
      .pipe(
        tap(() => seen++),
        verifyEvents(false),
      )
      .subscribe({
        error: (e) => {
          failures.push({
            index: seen,
            message: `verifyEvents (${chunks[seen]?.type}): ${e?.message ?? e}`,
          });
          resolve();
        },
        complete: resolve,
      });
  });
  const last = chunks[chunks.length - 1];
  if (!TERMINAL.has(last?.type)) {
    failures.push({
      index: chunks.length - 1,
      message: `the stream ends with ${last?.type}, not RUN_FINISHED or RUN_ERROR`,
    });
  }
  return failures.sort((a, b) => a.index - b.index);
}

/** Parses an NDJSON text (one chunk a line; blank lines ignored) into chunks; throws on bad JSON. */
export function parseNdjson(text) {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line, i) => {
      try {
        return JSON.parse(line);
      } catch (e) {
        throw new Error(`line ${i + 1} is not JSON: ${e.message}`);
      }
    });
}
