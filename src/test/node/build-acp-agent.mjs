// Bundles acp-test-agent.mjs and the ACP SDK it is written on into one ESM file,
// dist/acp-test-agent.bundle.mjs, that plain `node` runs with no node_modules beside it: the
// sandbox image the agent is copied into has Node but not this npm project.
// Run by scripts/node-clients after `npm ci`, or by hand: node build-acp-agent.mjs
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const outfile = path.join(here, "dist", "acp-test-agent.bundle.mjs");

await build({
  entryPoints: [path.join(here, "acp-test-agent.mjs")],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // Node built-ins stay imports (platform node); everything else, the SDK and zod, is inlined.
  legalComments: "eof",
  logLevel: "warning",
});
console.log(`[build-acp-agent] wrote ${path.relative(process.cwd(), outfile)}`);
