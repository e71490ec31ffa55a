import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { serverEnv } from "../helpers/server.mjs";

/** The paths (JSON pointers) where `a` and `b` differ, at most `limit`. */
function differences(a, b, path = "", out = [], limit = 10) {
  if (out.length >= limit) return out;
  if (Object.is(a, b)) return out;
  const aObject = a !== null && typeof a === "object";
  const bObject = b !== null && typeof b === "object";
  if (!aObject || !bObject || Array.isArray(a) !== Array.isArray(b)) {
    out.push(path || "/");
    return out;
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of [...keys].sort()) {
    const next = `${path}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;
    if (!(key in a) || !(key in b)) {
      if (out.length < limit) out.push(next + (key in a ? " (only in openapi.json)" : " (only on the server)"));
    } else {
      differences(a[key], b[key], next, out, limit);
    }
  }
  return out;
}

test("openapi.json equals the served OpenAPI document, servers aside", async () => {
  const { url } = serverEnv();
  const response = await fetch(`${url}/openapi?format=JSON`);
  assert.equal(response.status, 200);
  const served = await response.json();
  delete served.servers;
  const snapshot = JSON.parse(await readFile(new URL("../../openapi.json", import.meta.url), "utf8"));
  delete snapshot.servers;
  const diff = differences(snapshot, served);
  assert.ok(
    diff.length === 0,
    `openapi.json differs from ${url}/openapi at:\n  ${diff.join("\n  ")}\n` +
      "run npm run snapshot -w agentbox-client (with AGENTBOX_URL set) and rebuild",
  );
});
