import { randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildRefundGraph } from "../cli/fixtures/refund.fixture.js";
import { PostgresStateStore } from "../integrations/postgres/index.js";
import { MemoryStateStore } from "../stores/index.js";
import { createServer, type ListeningServer, listen } from "./index.js";

interface SseEvent {
  event: string;
  id: string | undefined;
  data: unknown;
}

/** Parse a whole server-sent event stream. */
function parseSse(text: string): SseEvent[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      let event = "message";
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("id: ")) id = line.slice(4);
        else if (line.startsWith("data: ")) data.push(line.slice(6));
      }
      return { event, id, data: JSON.parse(data.join("\n")) };
    });
}

function client(base: () => string, headers: Record<string, string> = {}) {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(base() + path, {
      method,
      headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const type = res.headers.get("content-type") ?? "";
    return {
      status: res.status,
      headers: res.headers,
      text,
      body: type.startsWith("application/json") ? (JSON.parse(text) as unknown) : null,
      events: type.startsWith("text/event-stream") ? parseSse(text) : [],
    };
  };
  return {
    get: (path: string) => call("GET", path),
    post: (path: string, body: unknown = {}) => call("POST", path, body),
  };
}

const err = (type: string, message: string) => ({ error: { type, message } });
const QUESTION = {
  key: "approve",
  value: { question: "Refund 250 EUR?" },
  node: "approve",
  taskId: "1:0",
};

describe("nodestep server: routes", () => {
  let server: ListeningServer;
  const api = client(() => server.url);
  beforeAll(async () => {
    const graph = buildRefundGraph({ stateStore: new MemoryStateStore() });
    server = await listen(createServer({ graph }), { port: 0 });
  });
  afterAll(() => server.close());

  it("listens on 127.0.0.1 and serves the studio page, its assets and a health check", async () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    const page = await api.get("/");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=UTF-8");
    expect(page.headers.get("cache-control")).toBe("no-cache");
    expect(page.text).toContain("<title>refund · nodestep studio</title>");
    expect(page.text).toContain('<div id="app"></div>');
    expect(page.headers.get("content-security-policy")).toBe(
      "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; media-src 'self' data: blob:; frame-ancestors 'none'",
    );
    // The built page names its hashed script and stylesheet, served from /assets/.
    const script =
      /<script type="module" crossorigin src="(\/assets\/index-[\w-]+\.js)"><\/script>/.exec(
        page.text,
      )?.[1];
    const style = /<link rel="stylesheet" crossorigin href="(\/assets\/index-[\w-]+\.css)">/.exec(
      page.text,
    )?.[1];
    expect(script).toBeDefined();
    expect(style).toBeDefined();
    const js = await api.get(script!);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(js.text).toContain("/api/graph");
    const css = await api.get(style!);
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(await api.get("/assets/nope.js")).toMatchObject({
      status: 404,
      body: { error: { type: "NotFound", message: 'The studio has no asset "nope.js"' } },
    });
    expect(await api.get("/assets/..%2Fbuild.json")).toMatchObject({ status: 404 });
    expect(await api.get("/health")).toMatchObject({ status: 200, body: { status: "ok" } });
    expect(await api.get("/api")).toMatchObject({
      status: 200,
      body: {
        graph: "refund",
        routes: [
          "GET /api/graph",
          "GET /api/tools",
          "GET /api/threads",
          "POST /api/threads",
          "GET /api/threads/:threadId/state",
          "POST /api/threads/:threadId/state",
          "GET /api/threads/:threadId/history",
          "GET /api/threads/:threadId/usage",
          "GET /api/threads/:threadId/history-view",
          "GET /api/threads/:threadId/branches",
          "GET /api/threads/:threadId/metrics",
          "GET /api/thread-list",
          "GET /api/models",
          "POST /api/threads/:threadId/runs",
          "POST /api/threads/:threadId/runs/stream",
          "GET /api/threads/:threadId/runs",
          "GET /api/threads/:threadId/runs/:runId",
          "GET /api/threads/:threadId/runs/:runId/stream",
          "POST /api/threads/:threadId/runs/:runId/cancel",
          "POST /api/threads/:threadId/ui-stream",
          "GET /api/threads/:threadId/ui-stream/:chatId/stream",
          "GET /api/threads/:threadId/ui-messages",
          "POST /api/threads/:threadId/fork",
          "DELETE /api/threads/:threadId",
        ],
      },
    });
  });

  it("describes the graph", async () => {
    const res = await api.get("/api/graph");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      name: "refund",
      nodes: ["plan", "approve", "reply"],
      edges: [
        { from: "__start__", to: "plan", kind: "edge" },
        { from: "plan", to: "approve", kind: "when", label: "when" },
        { from: "plan", to: "reply", kind: "otherwise", label: "not when" },
        { from: "approve", to: "reply", kind: "edge" },
        { from: "reply", to: "__end__", kind: "edge" },
      ],
      breakpoints: { before: [], after: [] },
      deferred: [],
    });
  });

  it("creates thread ids, and refuses one that exists", async () => {
    const made = await api.post("/api/threads", {});
    expect(made.status).toBe(201);
    expect((made.body as { threadId: string }).threadId).toMatch(/^t-[0-9a-f]{12}$/);
    expect(await api.post("/api/threads", { threadId: "named" })).toMatchObject({
      status: 201,
      body: { threadId: "named" },
    });
    await api.post("/api/threads/named/runs", { message: "refund 20" });
    expect(await api.post("/api/threads", { threadId: "named" })).toMatchObject({
      status: 409,
      body: err("ThreadExists", 'Thread "named" already exists'),
    });
  });

  it("streams a run that pauses, answers it, reads state and history, and forks", async () => {
    const started = await api.post("/api/threads/r1/runs/stream", { message: "Refund 250 please" });
    expect(started.status).toBe(200);
    expect(started.headers.get("content-type")).toBe("text/event-stream");
    expect(started.events.map((e) => [e.event, e.id])).toEqual([
      ["run", "1"],
      ["custom", "2"],
      ["updates", "3"],
      ["updates", "4"],
      ["end", "5"],
    ]);
    // The run's id (also the X-Nodestep-Run-Id header) joins its stream: docs/background-runs.md.
    const runId = started.headers.get("x-nodestep-run-id");
    expect(runId).toMatch(/^r-[0-9a-f]{16}$/);
    expect(started.events[0]?.data).toEqual({ threadId: "r1", branchId: "main", runId });
    expect(started.events[1]?.data).toEqual({
      mode: "custom",
      node: "plan",
      step: 0,
      taskId: "0:0",
      data: { progress: "planning" },
    });
    expect(started.events[2]?.data).toMatchObject({
      mode: "updates",
      node: "plan",
      step: 0,
      data: {
        amount: 250,
        approved: null,
        messages: [{ type: "ai", content: "A refund of 250 EUR needs approval." }],
      },
    });
    expect(started.events[3]?.data).toEqual({
      mode: "updates",
      node: null,
      step: -1,
      taskId: null,
      data: { __interrupt__: [QUESTION] },
    });
    expect(started.events[4]?.data).toMatchObject({
      threadId: "r1",
      branchId: "main",
      status: "interrupted",
      interrupts: [QUESTION],
      lastEventId: "r1/main/4",
      state: { amount: 250, approved: null },
    });

    const paused = await api.get("/api/threads/r1/state");
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({
      threadId: "r1",
      branchId: "main",
      step: 1,
      next: ["approve"],
      interrupts: [QUESTION],
      status: "interrupted",
      lastEventId: "r1/main/4",
    });

    const answered = await api.post("/api/threads/r1/runs", { resume: { approve: true } });
    expect(answered.status).toBe(200);
    const result = answered.body as { state: { messages: { content: string }[] } } & Record<
      string,
      unknown
    >;
    expect(result.runId).toMatch(/^r-[0-9a-f]{16}$/);
    expect(result).toMatchObject({
      threadId: "r1",
      branchId: "main",
      status: "completed",
      interrupts: [],
      lastEventId: "r1/main/8",
      state: { amount: 250, approved: true },
    });
    expect(result.state.messages.map((m) => m.content)).toEqual([
      "Refund 250 please",
      "A refund of 250 EUR needs approval.",
      "Refunded 250 EUR.",
    ]);

    const history = await api.get("/api/threads/r1/history");
    expect(history.status).toBe(200);
    const events = (history.body as { events: { id: string; type: string }[] }).events;
    expect(events.map((e) => `${e.id} ${e.type}`)).toEqual([
      "r1/main/1 run_started",
      "r1/main/2 step_committed",
      "r1/main/3 task_interrupted",
      "r1/main/4 run_finished",
      "r1/main/5 run_started",
      "r1/main/6 step_committed",
      "r1/main/7 step_committed",
      "r1/main/8 run_finished",
    ]);

    const atEvent = await api.get(
      `/api/threads/r1/state?eventId=${encodeURIComponent("r1/main/2")}`,
    );
    expect(atEvent.status).toBe(200);
    expect(atEvent.body).toMatchObject({
      step: 1,
      next: ["approve"],
      interrupts: [],
      lastEventId: "r1/main/2",
      state: { amount: 250, approved: null },
    });

    const forked = await api.post("/api/threads/r1/fork", { eventId: "r1/main/2", branchId: "no" });
    expect(forked.status).toBe(201);
    expect(forked.body).toEqual({
      threadId: "r1",
      branchId: "no",
      parent: { branchId: "main", seq: 2 },
      lastSeq: 2,
    });
    // Nothing runs on the fresh fork (it was cut inside main's run): it reads as a stopped run.
    const fresh = await api.get("/api/threads/r1/state?branchId=no");
    expect(fresh.body).toMatchObject({
      step: 1,
      next: ["approve"],
      interrupts: [],
      status: "interrupted",
      lastEventId: "r1/main/2",
    });
    const again = await api.post("/api/threads/r1/runs", { branchId: "no" });
    expect(again.body).toMatchObject({
      status: "interrupted",
      branchId: "no",
      interrupts: [QUESTION],
    });
    const declined = await api.post("/api/threads/r1/runs", {
      branchId: "no",
      resume: { approve: "nope" },
    });
    expect(declined.body).toMatchObject({ status: "completed", state: { approved: false } });
    const branchState = await api.get("/api/threads/r1/state?branchId=no");
    expect(
      (branchState.body as { state: { messages: { content: string }[] } }).state.messages.at(-1)
        ?.content,
    ).toBe("The refund of 250 EUR was declined.");
    const mainState = await api.get("/api/threads/r1/state");
    expect(
      (mainState.body as { state: { messages: { content: string }[] } }).state.messages.at(-1)
        ?.content,
    ).toBe("Refunded 250 EUR.");

    const threads = await api.get("/api/threads");
    const r1 = (
      threads.body as { threads: { threadId: string; branches: string[] }[] }
    ).threads.find((t) => t.threadId === "r1");
    expect(r1?.branches.sort()).toEqual(["main", "no"]);
  });

  it("answers a fork with a generated branch id", async () => {
    await api.post("/api/threads/r2/runs", { message: "refund 5" });
    const forked = await api.post("/api/threads/r2/fork", { eventId: "r2/main/1" });
    expect(forked.status).toBe(201);
    expect((forked.body as { branchId: string }).branchId).toMatch(/^b-[0-9a-f]+$/);
  });

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

  it("streams the tasks, checkpoints and debug modes as SSE events of those names", async () => {
    const r = await api.post("/api/threads/m1/runs/stream", {
      message: "Refund 50 please",
      modes: ["tasks", "checkpoints"],
    });
    expect(r.status).toBe(200);
    expect(r.events.map((e) => [e.event, (e.data as { node?: unknown }).node ?? null])).toEqual([
      ["run", null],
      ["tasks", "plan"],
      ["tasks", "plan"],
      ["checkpoints", null],
      ["tasks", "reply"],
      ["tasks", "reply"],
      ["checkpoints", null],
      ["end", null],
    ]);
    expect(r.events[2]?.data).toMatchObject({
      mode: "tasks",
      node: "plan",
      step: 0,
      taskId: "0:0",
      data: { kind: "result", update: { amount: 50, approved: null }, error: null },
    });
    expect(r.events[6]?.data).toMatchObject({
      mode: "checkpoints",
      node: null,
      step: 1,
      taskId: null,
      data: {
        threadId: "m1",
        branchId: "main",
        eventId: "m1/main/3",
        next: [],
        tasks: [],
        values: { amount: 50, approved: null },
      },
    });
    const debug = await api.post("/api/threads/m2/runs/stream", {
      message: "Refund 50 please",
      modes: ["debug", "messages"],
    });
    expect(
      debug.events.map((e) => [e.event, (e.data as { data?: { type?: unknown } }).data?.type]),
    ).toEqual([
      ["run", undefined],
      ["debug", "task"],
      ["debug", "task_result"],
      ["debug", "checkpoint"],
      ["debug", "task"],
      ["debug", "task_result"],
      ["debug", "checkpoint"],
      ["end", undefined],
    ]);
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

describe("two servers sharing one PostgreSQL store", () => {
  const URL = "postgres://postgres@127.0.0.1:5432/test";
  const schema = `nodestep_server_${randomBytes(4).toString("hex")}`;
  const stores: PostgresStateStore[] = [];
  const servers: ListeningServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
    for (const s of stores) await s.close();
    const admin = new pg.Pool({ connectionString: URL, max: 1 });
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  it("pauses a run on one server and answers it on the other", async () => {
    for (let i = 0; i < 2; i++) {
      const store = new PostgresStateStore({ connectionString: URL, schema });
      stores.push(store);
      servers.push(
        await listen(createServer({ graph: buildRefundGraph({ stateStore: store }) }), { port: 0 }),
      );
    }
    const a = client(() => servers[0]!.url);
    const b = client(() => servers[1]!.url);
    expect(await a.post("/api/threads/pg1/runs", { message: "refund 300" })).toMatchObject({
      status: 200,
      body: { status: "interrupted" },
    });
    expect(await b.get("/api/threads/pg1/state")).toMatchObject({
      status: 200,
      body: { status: "interrupted", next: ["approve"], state: { amount: 300 } },
    });
    expect(await b.post("/api/threads/pg1/runs", { resume: { approve: true } })).toMatchObject({
      status: 200,
      body: { status: "completed", state: { approved: true } },
    });
    const onA = await a.get("/api/threads/pg1/state");
    expect(onA.body).toMatchObject({ status: "completed", next: [], lastEventId: "pg1/main/8" });
    const listed = (await a.get("/api/threads")).body as { threads: { threadId: string }[] };
    expect(listed.threads.map((t) => t.threadId)).toEqual(["pg1"]);
  });
});
