import { test } from "node:test";
import assert from "node:assert/strict";
import { AgentboxClient, AgentboxProblem, isProblem } from "../../dist/index.js";

/** A client whose fetch answers every request with `response()`, recording the requests. */
function clientAnswering(response) {
  const requests = [];
  const client = new AgentboxClient({
    baseUrl: "http://agentbox.test/",
    token: "t0k",
    headers: { "X-Extra": "1" },
    fetch: async (url, init) => {
      requests.push({ url: String(url), init });
      return response();
    },
  });
  return { client, requests };
}

test("a problem document becomes an AgentboxProblem with code, field and the whole body", async () => {
  const body = {
    type: "https://agentbox.dev/problems/invalid-request",
    title: "Invalid request",
    status: 400,
    detail: "unknown member",
    code: "invalid-request",
    field: "timeoutMS",
  };
  const { client } = clientAnswering(
    () => new Response(JSON.stringify(body), { status: 400, headers: { "Content-Type": "application/problem+json" } }),
  );
  const error = await client.sandboxes.exec("k", { command: "true" }).catch((e) => e);
  assert.ok(error instanceof AgentboxProblem);
  assert.equal(error.status, 400);
  assert.equal(error.code, "invalid-request");
  assert.equal(error.field, "timeoutMS");
  assert.equal(error.detail, "unknown member");
  assert.equal(error.type, body.type);
  assert.deepEqual(error.body, body);
  assert.match(error.message, /400 invalid-request: unknown member \(field timeoutMS\)/);
  assert.ok(isProblem(error, "invalid-request"));
  assert.ok(!isProblem(error, "not-found"));
});

test("an answer that is no problem gets the code http-<status>", async () => {
  const { client } = clientAnswering(() => new Response("<html>bad gateway</html>", { status: 502, statusText: "Bad Gateway" }));
  const error = await client.providers().catch((e) => e);
  assert.ok(error instanceof AgentboxProblem);
  assert.equal(error.code, "http-502");
  assert.equal(error.title, "Bad Gateway");
  assert.equal(error.detail, "<html>bad gateway</html>");
});

test("a late exec failure inside a committed 200 is thrown as its problem", async () => {
  const late = { type: "https://agentbox.dev/problems/provider-unavailable", title: "Unavailable", status: 503, detail: "gone", code: "provider-unavailable" };
  const { client } = clientAnswering(() => new Response("   " + JSON.stringify(late), { status: 200 }));
  const error = await client.sandboxes.exec("k", { command: "sleep 5" }).catch((e) => e);
  assert.ok(error instanceof AgentboxProblem);
  assert.equal(error.status, 503);
  assert.equal(error.code, "provider-unavailable");
});

test("a network failure stays the fetch TypeError", async () => {
  const client = new AgentboxClient({ baseUrl: "http://agentbox.test", fetch: async () => { throw new TypeError("fetch failed"); } });
  await assert.rejects(client.providers(), (e) => e instanceof TypeError && !(e instanceof AgentboxProblem));
});

test("requests go under /api/v1 with the bearer token, the caller's headers and encoded path segments", async () => {
  const { client, requests } = clientAnswering(() => new Response(JSON.stringify({ runId: "a/b" }), { status: 200 }));
  await client.runs.get("a/b");
  assert.equal(requests[0].url, "http://agentbox.test/api/v1/runs/a%2Fb");
  assert.equal(requests[0].init.headers.Authorization, "Bearer t0k");
  assert.equal(requests[0].init.headers["X-Extra"], "1");
});

test("activeRun answers undefined for a thread without one", async () => {
  const { client } = clientAnswering(
    () => new Response(JSON.stringify({ status: 404, code: "not-found", title: "Not found" }), { status: 404 }),
  );
  assert.equal(await client.runs.activeRun("t"), undefined);
});

test("lists follow the Link rel=next cursor until no Link comes", async () => {
  let call = 0;
  const seen = [];
  const client = new AgentboxClient({
    baseUrl: "http://agentbox.test",
    fetch: async (url) => {
      seen.push(String(url));
      call++;
      return call === 1
        ? new Response(JSON.stringify([{ key: "a" }]), { headers: { Link: '</api/v1/sandboxes?limit=1&cursor=c%2B1>; rel="next"' } })
        : new Response(JSON.stringify([{ key: "b" }]));
    },
  });
  const keys = [];
  for await (const sandbox of client.sandboxes.list({ pageSize: 1 })) keys.push(sandbox.key);
  assert.deepEqual(keys, ["a", "b"]);
  assert.equal(seen[1], "http://agentbox.test/api/v1/sandboxes?limit=1&cursor=c%2B1");
});
