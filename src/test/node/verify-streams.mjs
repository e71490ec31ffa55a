// node verify-streams.mjs <dir>
// Every file in <dir> is one complete stream of agentbox chunks, NDJSON, in order. Each must pass
// checkStream (agui-check.mjs). Exits 1 on any failure, and when <dir> holds no stream at all, so
// that a suite that recorded nothing cannot pass.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { checkStream, parseNdjson } from "./agui-check.mjs";

const MAX_SHOWN_PER_FILE = 10;

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node verify-streams.mjs <dir>");
  process.exit(2);
}
let files;
try {
  files = readdirSync(dir)
    .filter((name) => statSync(join(dir, name)).isFile())
    .sort();
} catch (e) {
  console.error(`verify-streams: cannot read ${dir}: ${e.message}`);
  process.exit(1);
}

let events = 0;
let invalid = 0;
for (const name of files) {
  let failures;
  try {
    const chunks = parseNdjson(readFileSync(join(dir, name), "utf8"));
    events += chunks.length;
    failures = await checkStream(chunks);
  } catch (e) {
    failures = [{ index: 0, message: e.message }];
  }
  if (failures.length > 0) {
    invalid++;
    for (const f of failures.slice(0, MAX_SHOWN_PER_FILE)) {
      console.log(`INVALID ${name} #${f.index}: ${f.message}`);
    }
    if (failures.length > MAX_SHOWN_PER_FILE) {
      console.log(`INVALID ${name}: ... and ${failures.length - MAX_SHOWN_PER_FILE} more`);
    }
  }
}
console.log(
  `verify-streams ${dir}: ${files.length} streams, ${events} events, ${invalid} invalid streams`,
);
if (files.length === 0) {
  console.log("verify-streams: no stream was recorded, so nothing was verified");
  process.exit(1);
}
process.exit(invalid > 0 ? 1 : 0);
