// @ts-check
// Drives a sandbox and a run with the client generated from agentbox's OpenAPI document:
// openapi-fetch over the types openapi-typescript wrote to generated/agentbox-api.d.ts.
// openapi-client.mjs type-checks this file against those types (strict, checkJs) before it runs
// it, so a path, body or member the document does not describe fails the check, not only a run.
import createClient from "openapi-fetch";

/** @typedef {import("./generated/agentbox-api.js").paths} Paths */
/** @typedef {import("./generated/agentbox-api.js").components["schemas"]["Problem"]} Problem */

/**
 * @param {{baseUrl: string, token: string, thread: string, runId: string, definitionId: string}} o
 * @param {(name: string, ok: boolean, detail?: unknown) => void} check
 * @param {(schema: string, value: unknown) => string[]} conforms the answer's schema errors
 */
export async function drive(o, check, conforms) {
  /** @type {import("openapi-fetch").Client<Paths>} */
  const api = createClient({
    baseUrl: o.baseUrl.replace(/\/$/, ""),
    headers: { Authorization: `Bearer ${o.token}` },
  });
  /** @type {string | undefined} */
  let key;
  try {
    const ensured = await api.POST("/api/v1/sandboxes", {
      body: { definitionId: o.definitionId, lifecycle: { reuse: "none" } },
    });
    key = ensured.data?.key;
    const sandboxErrors = conforms("Sandbox", ensured.data);
    check(
      "ensure answers 201 with the created sandbox",
      ensured.response.status === 201 &&
        ensured.data?.outcome === "created" &&
        !!key &&
        sandboxErrors.length === 0,
      { status: ensured.response.status, sandboxErrors, error: ensured.error },
    );
    if (!key) return { key };
    const path = { key };

    const exec = await api.POST("/api/v1/sandboxes/{key}/exec", {
      params: { path },
      body: { command: "echo openapi-$((6*7))", timeoutMs: 30000 },
    });
    check(
      "exec answers the command's output",
      exec.response.status === 200 &&
        exec.data?.exitCode === 0 &&
        exec.data.stdout === "openapi-42\n" &&
        exec.data.truncated === undefined &&
        conforms("ExecResult", exec.data).length === 0,
      { data: exec.data ?? exec.error, schemaErrors: conforms("ExecResult", exec.data) },
    );

    const refused = await api.POST("/api/v1/sandboxes/{key}/exec", {
      params: { path },
      body: { command: "true", timeoutMs: 0 },
    });
    const refusal = /** @type {Problem | undefined} */ (refused.error);
    check(
      "a refused body is a typed problem naming its field",
      refused.response.status === 400 &&
        refused.response.headers.get("content-type")?.startsWith("application/problem+json") ===
          true &&
        refusal?.code === "invalid-request" &&
        refusal.field === "timeoutMs" &&
        conforms("Problem", refusal).length === 0,
      { refusal, schemaErrors: conforms("Problem", refusal) },
    );

    const started = await api.POST("/api/v1/runs", {
      body: {
        runId: o.runId,
        threadId: o.thread,
        sandbox: { key },
        harness: "command",
        command: "echo hello-from-the-generated-client",
      },
    });
    // POST /runs answers 202 JSON, or 200 with the event stream to a client that accepts
    // text/event-stream: the type is their union, and this client asked for JSON.
    const accepted = typeof started.data === "object" ? started.data : undefined;
    check(
      "a run starts: 202 with its events path",
      started.response.status === 202 &&
        accepted?.runId === o.runId &&
        accepted.events === `/api/v1/runs/${encodeURIComponent(o.runId)}/events` &&
        conforms("RunAccepted", accepted).length === 0,
      { data: started.data ?? started.error, schemaErrors: conforms("RunAccepted", accepted) },
    );

    /** @type {unknown} */
    let record;
    /** @type {string | undefined} */
    let status;
    const until = Date.now() + 90_000;
    while (Date.now() < until) {
      const run = await api.GET("/api/v1/runs/{runId}", { params: { path: { runId: o.runId } } });
      record = run.data;
      status = run.data?.status;
      if (status === "completed" || status === "failed" || status === "aborted") break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const runErrors = conforms("Run", record);
    check(
      "the run's status reaches completed",
      status === "completed" && runErrors.length === 0,
      { record, runErrors },
    );

    const log = await api.GET("/api/v1/runs/{runId}/log", {
      params: { path: { runId: o.runId }, query: { limit: "1000" } },
    });
    const texts = (log.data ?? [])
      .map((e) => e.chunk)
      .filter((c) => c.type === "CUSTOM" && c.name === "agent.text")
      .map((c) => c.value);
    const logErrors = (log.data ?? []).flatMap((e) => conforms("LogEntry", e));
    check(
      "the run's log holds what the agent printed",
      texts.includes("hello-from-the-generated-client") && logErrors.length === 0,
      { texts, logErrors },
    );

    const missing = await api.GET("/api/v1/runs/{runId}", {
      params: { path: { runId: `${o.runId}-missing` } },
    });
    const notFound = /** @type {Problem | undefined} */ (missing.error);
    check(
      "an unknown run is a typed 404 problem",
      missing.response.status === 404 &&
        notFound?.status === 404 &&
        notFound.code === "not-found" &&
        notFound.type === "https://agentbox.dev/problems/not-found" &&
        conforms("Problem", notFound).length === 0,
      { notFound, schemaErrors: conforms("Problem", notFound) },
    );
    return { key };
  } finally {
    if (key) {
      const deleted = await api.DELETE("/api/v1/sandboxes/{key}", { params: { path: { key } } });
      check("delete answers 204", deleted.response.status === 204, deleted.error);
    }
  }
}
