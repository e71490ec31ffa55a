// A TanStack AI sandbox on agentbox: define it, let TanStack create and bootstrap it, use it,
// release it. No model is called; this is the sandbox half of an agent app.
//
//   AGENTBOX_URL=http://localhost:9080 AGENTBOX_TOKEN=… npm start
//
// The last line printed is a JSON summary; the exit code is non-zero on any failure.
import { randomUUID } from "node:crypto";
import { defineSandbox, defineWorkspace, fileSkill, watchWorkspace } from "@tanstack/ai-sandbox";
import { agentboxSandbox } from "@agentbox/tanstack-sandbox";

const baseUrl = process.env.AGENTBOX_URL;
if (!baseUrl) {
  console.error("set AGENTBOX_URL (and AGENTBOX_TOKEN unless the server runs without tokens)");
  process.exit(2);
}

const provider = await agentboxSandbox({ baseUrl, token: process.env.AGENTBOX_TOKEN, definitionId: "tanstack-example" });

const sandbox = defineSandbox({
  id: "example",
  provider,
  workspace: defineWorkspace({
    source: { type: "none" },
    instructions: "Keep the word counts up to date.",
    skills: [fileSkill({ path: "docs/poem.txt", content: "the sandbox runs where agentbox runs\nnot on this laptop\n" })],
    setup: ["mkdir -p out", "cd docs && wc -w poem.txt > ../out/count.txt"],
  }),
  lifecycle: { snapshot: "none" },
});

// withSandbox derives these from the chat run; here we pass them ourselves.
const run = { threadId: `example-${randomUUID()}`, runId: randomUUID() };
let summary = { ok: false };
try {
  const handle = await sandbox.ensure(run); // create + bootstrapWorkspace, on agentbox
  console.log(`sandbox ${handle.id} (${handle.provider}, workspace ${handle.workspaceRoot})`);

  const changed = [];
  const watcher = await watchWorkspace(handle, { onEvent: (event) => changed.push(`${event.type} ${event.path}`) });
  const uname = await handle.process.exec("uname -sm");
  await handle.process.exec("date -u +%Y > out/year.txt");
  const count = (await handle.fs.read("out/count.txt")).trim();
  const agents = await handle.fs.read("AGENTS.md");
  await new Promise((resolve) => setTimeout(resolve, 500)); // let the file event arrive
  await watcher.stop();

  console.log(`uname: ${uname.stdout.trim()}`);
  console.log(`out/count.txt: ${count}`);
  console.log(`AGENTS.md: ${agents.split("\n")[0]}`);
  console.log(`file events: ${changed.join(", ") || "none"}`);
  if (uname.exitCode !== 0 || !count.startsWith("10 ")) throw new Error(`unexpected results: ${uname.stderr} ${count}`);
  summary = {
    ok: true,
    sandbox: handle.id,
    uname: uname.stdout.trim(),
    words: Number(count.split(" ")[0]),
    fileEvents: changed.length,
  };
} catch (error) {
  summary = { ok: false, error: String(error?.message ?? error), code: error?.code };
  process.exitCode = 1;
} finally {
  await sandbox.destroy(run).catch((error) => {
    summary = { ...summary, ok: false, destroyError: String(error?.message ?? error) };
    process.exitCode = 1;
  });
}
console.log(JSON.stringify(summary));
