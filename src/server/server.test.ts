// The server's routes: the studio page, the graph's description, thread ids, a run that
// pauses, is answered, read and forked, and the stream modes. Refusals and errors:
// server-refusals.test.ts; two servers on one PostgreSQL store: server-postgres.test.ts.
// Shared setup: server.fixture.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ListeningServer } from "./index.js";
import { client, err, QUESTION, startRefundServer } from "./server.fixture.js";

describe("nodestep server: routes", () => {
  let server: ListeningServer;
  const api = client(() => server.url);
  beforeAll(async () => {
    server = await startRefundServer();
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
});
