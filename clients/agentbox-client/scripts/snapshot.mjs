#!/usr/bin/env node
// Retakes openapi.json from a running server: `AGENTBOX_URL=http://localhost:9080 npm run snapshot`.
// The document's `servers` name the host it was fetched from, so they are dropped: the snapshot
// describes the API, not one installation. Written as 2-space JSON with a final newline, in the
// server's own member order, so a retake of an unchanged API changes no byte.
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const base = process.env.AGENTBOX_URL;
if (!base) {
  console.error("AGENTBOX_URL is not set (the server's origin, e.g. http://localhost:9080)");
  process.exit(2);
}
const url = `${base.replace(/\/+$/, "")}/openapi?format=JSON`;
const response = await fetch(url);
if (!response.ok) {
  console.error(`GET ${url}: ${response.status} ${response.statusText}`);
  process.exit(1);
}
const document = await response.json();
delete document.servers;
const target = fileURLToPath(new URL("../openapi.json", import.meta.url));
await writeFile(target, JSON.stringify(document, null, 2) + "\n");
console.log(`wrote ${target} from ${url} (${Object.keys(document.paths ?? {}).length} paths)`);
