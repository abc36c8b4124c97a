// The server's refusals and errors: malformed requests, unknown ids, a failed run, a busy
// thread, other host names, CORS, the API key, createServer's checks.
// Shared setup: server.fixture.ts.
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildRefundGraph } from "../cli/fixtures/refund.fixture.js";
import { MemoryStateStore } from "../stores/index.js";
import { createServer, type ListeningServer, listen } from "./index.js";
import { client, err, startRefundServer } from "./server.fixture.js";

describe("nodestep server: routes", () => {
  let server: ListeningServer;
  const api = client(() => server.url);
  beforeAll(async () => {
    server = await startRefundServer();
  });
  afterAll(() => server.close());

  it("answers malformed requests with 400, 413 and 415", async () => {
    const raw = await fetch(`${server.url}/api/threads/x/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(raw.status).toBe(400);
    const body = (await raw.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe("InvalidJson");
    expect(body.error.message.startsWith("The request body is not JSON: ")).toBe(true);

    const plain = await fetch(`${server.url}/api/threads/x/runs`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: '{"message":"hi"}',
    });
    expect(plain.status).toBe(415);
    expect(await plain.json()).toEqual(
      err(
        "UnsupportedMediaType",
        "Send the request body as JSON, with Content-Type: application/json",
      ),
    );

    expect(await api.post("/api/threads/x/runs", { mesage: "typo" })).toMatchObject({
      status: 400,
      body: err("InvalidRequest", 'body: Unrecognized key: "mesage"'),
    });
    expect(await api.post("/api/threads/x/runs", { message: "a", input: {} })).toMatchObject({
      status: 400,
      body: err("InvalidRequest", "body: give either input or message, not both"),
    });
    expect(
      await api.post("/api/threads/x/runs", { message: "a", resume: { approve: true } }),
    ).toMatchObject({
      status: 400,
      body: err(
        "InvalidRequest",
        "body: resume answers continue a paused run: send them without input or message",
      ),
    });
    expect(await api.post("/api/threads/x/runs", { modes: ["everything"] })).toMatchObject({
      status: 400,
      body: { error: { type: "InvalidRequest" } },
    });
    expect(await api.post("/api/threads/x/runs", { input: { nope: 1 } })).toMatchObject({
      status: 400,
      body: { error: { type: "StateUpdateError" } },
    });
    expect(await api.get("/api/threads/%01bad/state")).toMatchObject({
      status: 400,
      body: err("InvalidRequest", "threadId: must not contain '/' or control characters"),
    });
    expect(await api.get("/api/threads/x/state?branchId=")).toMatchObject({
      status: 400,
      body: err("InvalidRequest", "branchId must not be empty"),
    });
    const big = await api.post("/api/threads/x/runs", { message: "x".repeat(1024 * 1024 + 10) });
    expect(big.status).toBe(413);
    expect(big.body).toEqual(
      err("PayloadTooLarge", "The request body is larger than 1048576 bytes"),
    );
  });

  it("answers unknown threads, branches, events and routes with 404", async () => {
    expect(await api.get("/api/threads/ghost/state")).toMatchObject({
      status: 404,
      body: err("UnknownThread", 'Thread "ghost" has no events'),
    });
    expect(await api.get("/api/threads/ghost/history")).toMatchObject({
      status: 404,
      body: err("UnknownThread", 'Thread "ghost" has no events'),
    });
    expect(await api.post("/api/threads/ghost/runs", { resume: { approve: true } })).toMatchObject({
      status: 404,
      body: {
        error: {
          type: "UnknownBranchError",
          message:
            'Thread "ghost" (branch "main") has no history to continue; start it with an input',
        },
      },
    });
    await api.post("/api/threads/known/runs", { message: "refund 1" });
    expect(await api.get("/api/threads/known/state?branchId=nope")).toMatchObject({
      status: 404,
      body: err("UnknownBranchError", 'Thread "known" has no branch "nope"'),
    });
    expect(await api.get("/api/threads/known/state?eventId=known%2Fmain%2F99")).toMatchObject({
      status: 404,
      body: err(
        "UnknownEventError",
        'Event "known/main/99" is not in the history of thread "known" (branch "main")',
      ),
    });
    const fork = await api.post("/api/threads/known/fork", { eventId: "known/main/99" });
    expect(fork.status).toBe(404);
    expect((fork.body as { error: { type: string } }).error.type).toBe("UnknownEventError");
    expect(
      await api.post("/api/threads/known/fork", { eventId: "known/main/1", branchId: "main" }),
    ).toMatchObject({
      status: 409,
      body: err("BranchExists", 'Thread "known" already has a branch "main"'),
    });
    expect(await api.post("/api/threads/known/runs", { resume: { wrong: 1 } })).toMatchObject({
      status: 400,
      body: err(
        "ValueError",
        'Thread "known" has no pending interrupt with key "wrong"; pending: (none)',
      ),
    });
    expect(await api.get("/api/nothing")).toMatchObject({
      status: 404,
      body: err("NotFound", "No route GET /api/nothing"),
    });
  });

  it("answers a failed run with 500 and its error, and a failure mid-stream with an error event", async () => {
    expect(await api.post("/api/threads/f1/runs", { message: "explode 5" })).toMatchObject({
      status: 500,
      body: err("Error", "the planner exploded"),
    });
    const streamed = await api.post("/api/threads/f2/runs/stream", { message: "explode 5" });
    expect(streamed.status).toBe(200);
    expect(streamed.events.map((e) => e.event)).toEqual(["run", "custom", "error"]);
    expect(streamed.events[2]?.data).toEqual(err("Error", "the planner exploded"));
  });

  it("refuses a second run on a busy thread with 409, and a closed stream cancels its run", async () => {
    const controller = new AbortController();
    const res = await fetch(`${server.url}/api/threads/busy/runs/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "refund 500 slowly" }),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let seen = "";
    while (!seen.includes("event: custom")) {
      const chunk = await reader.read();
      seen += new TextDecoder().decode(chunk.value);
    }
    const second = await api.post("/api/threads/busy/runs", { message: "refund 1" });
    expect(second.status).toBe(409);
    expect((second.body as { error: { type: string } }).error.type).toBe("ThreadBusyError");
    controller.abort();
    // The cancelled run gives the thread back: a new run on it starts at once.
    let next = await api.post("/api/threads/busy/runs", { message: "refund 7" });
    for (let i = 0; i < 50 && next.status === 409; i++) {
      await new Promise((r) => setTimeout(r, 20));
      next = await api.post("/api/threads/busy/runs", { message: "refund 7" });
    }
    expect(next).toMatchObject({
      status: 200,
      body: { status: "completed", state: { amount: 7 } },
    });
  });

  it("refuses requests addressed to another host name (DNS rebinding)", async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port: server.port,
          path: "/api/threads",
          headers: { host: "evil.example:80" },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(403);
    expect((await fetch(`http://localhost:${server.port}/health`)).status).toBe(200);
  });

  it("keeps CORS closed: no allow-origin header, preflights not answered", async () => {
    const res = await fetch(`${server.url}/api/threads`, {
      headers: { origin: "http://elsewhere.example" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(null);
    const preflight = await fetch(`${server.url}/api/threads`, {
      method: "OPTIONS",
      headers: { origin: "http://elsewhere.example", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(404);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(null);
  });
});

describe("nodestep server: API key and CORS origins", () => {
  let server: ListeningServer;
  beforeAll(async () => {
    const graph = buildRefundGraph({ stateStore: new MemoryStateStore() });
    server = await listen(
      createServer({ graph, apiKey: "s3cret", corsOrigins: ["http://app.example"] }),
      { port: 0 },
    );
  });
  afterAll(() => server.close());

  it("needs the bearer key on /api, not on the page or the health check", async () => {
    const none = await client(() => server.url).get("/api/threads");
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="nodestep"');
    expect(none.body).toEqual(
      err("Unauthorized", "This server needs an API key: send Authorization: Bearer <key>"),
    );
    const wrong = await client(() => server.url, { authorization: "Bearer nope" }).get(
      "/api/threads",
    );
    expect(wrong).toMatchObject({
      status: 401,
      body: err("Unauthorized", "The API key is not valid"),
    });
    const right = await client(() => server.url, { authorization: "Bearer s3cret" }).get(
      "/api/threads",
    );
    expect(right).toMatchObject({ status: 200, body: { threads: [] } });
    expect((await client(() => server.url).get("/api")).status).toBe(401);
    expect((await client(() => server.url).get("/")).status).toBe(200);
    expect((await client(() => server.url).get("/health")).status).toBe(200);
  });

  it("answers preflights from the allowed origin only", async () => {
    const ok = await fetch(`${server.url}/api/threads`, {
      method: "OPTIONS",
      headers: { origin: "http://app.example", "access-control-request-method": "POST" },
    });
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe("http://app.example");
    // Last-Event-ID: a browser rejoining a run (docs/background-runs.md).
    expect(ok.headers.get("access-control-allow-headers")).toBe(
      "Authorization,Content-Type,Last-Event-ID",
    );
    const other = await fetch(`${server.url}/api/threads`, {
      method: "OPTIONS",
      headers: { origin: "http://evil.example", "access-control-request-method": "POST" },
    });
    expect(other.headers.get("access-control-allow-origin")).toBe(null);
  });
});

describe("createServer", () => {
  it("needs a graph with a store, and only that store", () => {
    const store = new MemoryStateStore();
    const graph = buildRefundGraph({ stateStore: store });
    const bare = buildRefundGraph({ stateStore: null as unknown as MemoryStateStore });
    expect(() => createServer({ graph: bare })).toThrow(
      'createServer: graph "refund" has no stateStore; threads need one (new Graph(State, { stateStore }))',
    );
    expect(() => createServer({ graph, store: new MemoryStateStore() })).toThrow(
      'createServer: the store given is not the stateStore of graph "refund"; the graph runs on its own store, so pass that one (or none)',
    );
    expect(() => createServer({ graph, store })).not.toThrow();
  });
});
