// The OpenAPI document as a client generator sees it (OpenApiClientIT): fetches /openapi from the
// server, lints it with Redocly (redocly.yaml), generates TypeScript types from it with
// openapi-typescript, type-checks openapi-drive.mjs against them with the TypeScript compiler
// (and a misuse that must fail the check), then runs the drive: a sandbox and a run through
// openapi-fetch, whose answers must also conform to the document's schemas (Ajv). Options: {baseUrl, token, thread, runId, definitionId}. Prints {lint, typecheck,
// checks} and exits 1 when a step failed.
import { lint, loadConfig } from "@redocly/openapi-core";
import Ajv from "ajv";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { emit, fail, options } from "./script-io.mjs";

// Redocly's own network traffic (usage telemetry, update notices) stays off: tests talk only to
// the server under test.
process.env.REDOCLY_TELEMETRY = "off";
process.env.REDOCLY_SUPPRESS_UPDATE_NOTICE = "true";

const here = (name) => fileURLToPath(new URL(name, import.meta.url));
const opts = options(["baseUrl", "token", "thread", "runId", "definitionId"]);

const MISUSE = `// @ts-check
import createClient from "openapi-fetch";
/** @type {import("openapi-fetch").Client<import("./agentbox-api.js").paths>} */
const api = createClient({ baseUrl: "http://127.0.0.1:1" });
// exec without its required command, and a member the document does not have
await api.POST("/api/v1/sandboxes/{key}/exec", { params: { path: { key: "k" } }, body: { cwd: "/" } });
const run = await api.GET("/api/v1/runs/{runId}", { params: { path: { runId: "r" } } });
run.data?.notAMember;
`;

/**
 * `conforms(name, value)`: the errors of `value` against the document's schema `name` (empty when
 * it conforms). The schemas are OpenAPI 3.0's dialect of JSON Schema: Ajv reads them leniently
 * (`nullable`, `example` and formats are not checked), which the answers checked here never need.
 */
function validator(document) {
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema(document, "agentbox");
  return (name, value) => {
    const validate = ajv.getSchema(`agentbox#/components/schemas/${name}`);
    if (!validate) return [`no schema ${name}`];
    return validate(value)
      ? []
      : validate.errors.map((e) => `${name}${e.instancePath} ${e.message}`);
  };
}

/** Diagnostics of type-checking `files` (JavaScript checked as TypeScript, strict). */
function typecheck(files) {
  const program = ts.createProgram(files, {
    allowJs: true,
    checkJs: true,
    noEmit: true,
    strict: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: [],
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

try {
  const response = await fetch(`${opts.baseUrl.replace(/\/$/, "")}/openapi?format=JSON`, {
    headers: { Accept: "application/json" },
  });
  if (response.status !== 200) throw new Error(`/openapi answered ${response.status}`);
  const text = await response.text();
  const document = JSON.parse(text);
  mkdirSync(here("generated"), { recursive: true });
  const documentFile = here("generated/openapi.json");
  writeFileSync(documentFile, text);

  const config = await loadConfig({ configPath: here("redocly.yaml") });
  const problems = await lint({ ref: documentFile, config });
  const describe = (p) => `${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer ?? "?"}`;
  const lintResult = {
    errors: problems.filter((p) => p.severity === "error").map(describe),
    warnings: problems.filter((p) => p.severity === "warn").map(describe),
  };

  const types = astToString(await openapiTS(document));
  writeFileSync(here("generated/agentbox-api.d.ts"), types);
  writeFileSync(here("generated/misuse.mjs"), MISUSE);
  const typecheckResult = {
    drive: typecheck([here("openapi-drive.mjs")]),
    misuse: typecheck([here("generated/misuse.mjs")]),
  };

  const checks = [];
  const check = (name, ok, detail) => checks.push({ name, ok, detail });
  if (typecheckResult.drive.length === 0) {
    const { drive } = await import("./openapi-drive.mjs");
    await drive(opts, check, validator(document));
  }
  const ok =
    lintResult.errors.length === 0 &&
    typecheckResult.drive.length === 0 &&
    typecheckResult.misuse.length > 0 &&
    checks.length > 0 &&
    checks.every((c) => c.ok);
  emit({ lint: lintResult, typecheck: typecheckResult, checks });
  process.exit(ok ? 0 : 1);
} catch (e) {
  fail(e);
}
