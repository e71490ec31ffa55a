import { test } from "node:test";
import assert from "node:assert/strict";
import { parseOptions, UsageError, HelpRequested } from "../../dist/index.js";

const noFile = () => {
  throw new Error("ENOENT: no such file");
};
const env = { AGENTBOX_URL: "http://localhost:9080" };

test("the agent, the URL and the token come from --agent and the environment", () => {
  assert.deepEqual(parseOptions(["--agent", "coder"], { ...env, AGENTBOX_TOKEN: "t" }, noFile), {
    agentId: "coder",
    baseUrl: "http://localhost:9080",
    token: "t",
  });
  assert.equal(parseOptions(["--agent=coder"], env, noFile).agentId, "coder");
});

test("a missing --agent is a usage error with exit code 2 that says what is missing", () => {
  assert.throws(() => parseOptions([], env, noFile), (e) => e instanceof UsageError && e.exitCode === 2 && /--agent <agentId> is required/.test(e.message));
  assert.throws(() => parseOptions(["--agent"], env, noFile), UsageError);
  assert.throws(() => parseOptions(["--agent", ".hidden"], env, noFile), /no agent id/);
  assert.throws(() => parseOptions(["--agent", "a", "--verbose"], env, noFile), /unknown argument "--verbose"/);
});

test("AGENTBOX_URL is required, http(s) only, and a trailing /api/v1 or slash is dropped", () => {
  assert.throws(() => parseOptions(["--agent", "a"], {}, noFile), /AGENTBOX_URL is required/);
  assert.throws(() => parseOptions(["--agent", "a"], { AGENTBOX_URL: "ftp://x" }, noFile), /http:\/\/ or https:\/\//);
  assert.throws(() => parseOptions(["--agent", "a"], { AGENTBOX_URL: "not a url" }, noFile), /is no URL/);
  assert.equal(parseOptions(["--agent", "a"], { AGENTBOX_URL: "https://box.example/api/v1/" }, noFile).baseUrl, "https://box.example");
});

test("the token file is read and trimmed; AGENTBOX_TOKEN wins over it; an unreadable or empty file is a usage error", () => {
  const files = { "/run/token": "  secret\n", "/run/empty": "\n" };
  const read = (p) => {
    if (p in files) return files[p];
    throw new Error("ENOENT");
  };
  assert.equal(parseOptions(["--agent", "a"], { ...env, AGENTBOX_TOKEN_FILE: "/run/token" }, read).token, "secret");
  assert.equal(parseOptions(["--agent", "a"], { ...env, AGENTBOX_TOKEN: "direct", AGENTBOX_TOKEN_FILE: "/run/token" }, read).token, "direct");
  assert.throws(() => parseOptions(["--agent", "a"], { ...env, AGENTBOX_TOKEN_FILE: "/nope" }, read), /cannot read AGENTBOX_TOKEN_FILE/);
  assert.throws(() => parseOptions(["--agent", "a"], { ...env, AGENTBOX_TOKEN_FILE: "/run/empty" }, read), /is empty/);
  assert.equal("token" in parseOptions(["--agent", "a"], env, read), false, "no token: a dev-mode server");
});

test("--help asks for the usage", () => {
  assert.throws(() => parseOptions(["--help"], env, noFile), HelpRequested);
});
