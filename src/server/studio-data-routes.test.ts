/** Issue 18 items 2, 3, 5, 6: the routes the studio's graph, history, metrics and thread list read. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent } from "../agents/react-agent.js";
import { ScriptedChat } from "../chat/scripted-chat.js";
import { buildRefundGraph } from "../cli/fixtures/refund.fixture.js";
import { END, Graph, node, START, when } from "../graph/index.js";
import { SqliteStateStore } from "../integrations/sqlite/index.js";
import { defineState } from "../state/index.js";
import { MemoryStateStore } from "../stores/index.js";
import { createServer } from "./index.js";

function client(app: ReturnType<typeof createServer>) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await app.fetch(
      new Request(`http://127.0.0.1${path}`, {
        method,
        headers: { "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
}

const err = (type: string, message: string) => ({ error: { type, message } });

describe("studio data routes", () => {
  it("GET /api/graph names the conditions, the breakpoints and the deferred nodes", async () => {
    const graph = buildRefundGraph({ stateStore: new MemoryStateStore() });
    const call = client(createServer({ graph }));
    expect((await call("GET", "/api/graph")).body).toEqual({
      name: "refund",
      nodes: ["plan", "approve", "reply"],
      edges: [
        { from: "__start__", to: "plan", kind: "edge" },
        // An arrow function has no name: the label says "when".
        { from: "plan", to: "approve", kind: "when", label: "when" },
        { from: "plan", to: "reply", kind: "otherwise", label: "not when" },
        { from: "approve", to: "reply", kind: "edge" },
        { from: "reply", to: "__end__", kind: "edge" },
      ],
      breakpoints: { before: [], after: [] },
      deferred: [],
    });
  });

  it("a named condition labels its edges; a ref's export name wins; breakpoints and deferred nodes are listed", async () => {
    const S = defineState({ n: z.number().default(0) });
    const a = node(() => ({ n: 1 }), { name: "a" });
    const b = node(() => ({}), { name: "b" });
    const c = node(() => ({}), { name: "c", defer: true });
    function isBig(s: { n: number }) {
      return s.n > 5;
    }
    const graph = new Graph(S, {
      name: "g",
      stateStore: new MemoryStateStore(),
      interruptBefore: ["b"],
      interruptAfter: "*",
    }).flow(
      START.to(a),
      a.to(when(isBig, b, { otherwise: c })),
      b.to(when((s: { n: number }) => s.n > 1, END, { otherwise: c, ref: "./conds.js#tooMany" })),
      c.to(END),
    );
    const view = (await client(createServer({ graph }))("GET", "/api/graph")).body;
    expect(view).toEqual({
      name: "g",
      nodes: ["a", "b", "c"],
      edges: [
        { from: "__start__", to: "a", kind: "edge" },
        { from: "a", to: "b", kind: "when", label: "isBig" },
        { from: "a", to: "c", kind: "otherwise", label: "not isBig" },
        { from: "b", to: "__end__", kind: "when", label: "tooMany" },
        { from: "b", to: "c", kind: "otherwise", label: "not tooMany" },
        { from: "c", to: "__end__", kind: "edge" },
      ],
      breakpoints: { before: ["b"], after: "*" },
      deferred: ["c"],
    });
  });

  it("history-view, branches and metrics of a thread; 404s say what is missing", async () => {
    const graph = buildRefundGraph({ stateStore: new MemoryStateStore() });
    const call = client(createServer({ graph }));
    await call("POST", "/api/threads/t1/runs", { message: "Refund 250" });
    await call("POST", "/api/threads/t1/runs", { resume: { approve: true } });
    const view = await call("GET", "/api/threads/t1/history-view");
    expect(view.status).toBe(200);
    const entries = view.body.entries as { id: string; nodes: string[]; summary: string }[];
    expect(entries.map((e) => `${e.id} [${e.nodes.join(",")}] ${e.summary}`)).toEqual([
      "t1/main/1 [] you: Refund 250",
      "t1/main/2 [plan] ai: A refund of 250 EUR needs approval. · also amount",
      "t1/main/3 [approve] asks approve: Refund 250 EUR?",
      "t1/main/4 [] paused: waiting for approve",
      "t1/main/5 [] answered approve=true",
      "t1/main/6 [approve] approved=true",
      "t1/main/7 [reply] ai: Refunded 250 EUR.",
      "t1/main/8 [] completed",
    ]);

    const fork = await call("POST", "/api/threads/t1/fork", {
      eventId: "t1/main/2",
      branchId: "try-again",
    });
    expect(fork.status).toBe(201);
    // Run on the fork from there: it asks for the approval again.
    expect(
      (await call("POST", "/api/threads/t1/runs", { branchId: "try-again" })).body.status,
    ).toBe("interrupted");
    const branches = await call("GET", "/api/threads/t1/branches");
    expect(branches).toEqual({
      status: 200,
      body: {
        threadId: "t1",
        branches: [
          {
            branchId: "main",
            parent: null,
            lastSeq: 8,
            children: [
              {
                branchId: "try-again",
                parent: {
                  branchId: "main",
                  seq: 2,
                  eventId: "t1/main/2",
                  summary: "step_committed: ai: A refund of 250 EUR needs approval. · also amount",
                },
                lastSeq: (await graph.stateStore!.getBranch("t1", "try-again"))!.lastSeq,
                children: [],
              },
            ],
          },
        ],
      },
    });
    const forkView = await call("GET", "/api/threads/t1/history-view?branchId=try-again");
    expect((forkView.body.entries as { id: string }[]).slice(0, 3).map((e) => e.id)).toEqual([
      "t1/main/1",
      "t1/main/2",
      "t1/try-again/3",
    ]);

    const metrics = await call("GET", "/api/threads/t1/metrics");
    const runs = metrics.body.runs as {
      runId: string;
      status: string;
      nodes: { node: string }[];
    }[];
    expect(runs.map((r) => [r.status, r.nodes.map((n) => n.node)])).toEqual([
      ["interrupted", ["plan", "approve"]],
      ["completed", ["approve", "reply"]],
    ]);
    const one = await call("GET", `/api/threads/t1/metrics?runId=${runs[1]!.runId}`);
    expect((one.body.runs as { runId: string }[]).map((r) => r.runId)).toEqual([runs[1]!.runId]);

    const last2 = await call("GET", "/api/threads/t1/history-view?limit=2");
    expect([last2.body.total, (last2.body.entries as { id: string }[]).map((e) => e.id)]).toEqual([
      8,
      ["t1/main/7", "t1/main/8"],
    ]);
    expect(await call("GET", "/api/threads/t1/history-view?limit=5001")).toEqual({
      status: 400,
      body: err("InvalidRequest", 'limit must be an integer from 1 to 5000, got "5001"'),
    });
    expect(await call("GET", "/api/threads/nope/history-view")).toEqual({
      status: 404,
      body: err("UnknownThread", 'Thread "nope" has no events'),
    });
    expect(await call("GET", "/api/threads/nope/branches")).toEqual({
      status: 404,
      body: err("UnknownThread", 'Thread "nope" has no events'),
    });
    expect(await call("GET", "/api/threads/t1/metrics?runId=r-x")).toEqual({
      status: 404,
      body: err("UnknownRun", 'Run "r-x" has no events on branch "main" of thread "t1"'),
    });
    expect((await call("GET", "/api/threads/t1/metrics?branchId=zz")).status).toBe(404);
  });

  it("metrics carry tokens and cost at the server's prices", async () => {
    const graph = buildReactAgent(
      new ScriptedChat([{ content: "Hi.", usage: { inputTokens: 1_000, outputTokens: 500 } }], {
        model: "m",
      }),
      { tools: [], stateStore: new MemoryStateStore() },
    );
    const call = client(
      createServer({ graph, prices: { m: { inputPerMillion: 10, outputPerMillion: 20 } } }),
    );
    await call("POST", "/api/threads/c/runs", { message: "hello" });
    const [run] = (await call("GET", "/api/threads/c/metrics")).body.runs as {
      cost: unknown;
      modelCalls: number;
      nodes: { node: string; cost: unknown; modelCalls: number }[];
    }[];
    // 1,000 × 10 / 1M + 500 × 20 / 1M = 0.01 + 0.01
    expect([run!.modelCalls, run!.cost]).toEqual([
      1,
      { usd: 0.02, byModel: { m: 0.02 }, unpriced: [] },
    ]);
    expect(run!.nodes.map((n) => [n.node, n.modelCalls, n.cost])).toEqual([
      ["think", 1, { usd: 0.02, byModel: { m: 0.02 }, unpriced: [] }],
    ]);
  });

  it("GET /api/thread-list: titles from the first human message, search, pages, bad limits", async () => {
    const graph = buildRefundGraph({ stateStore: new MemoryStateStore() });
    const call = client(createServer({ graph }));
    await call("POST", "/api/threads/a/runs", { message: "Refund 20 for the kettle" });
    await call("POST", "/api/threads/b/runs", { message: "Refund 30 for the teapot" });
    await call("POST", "/api/threads/c/runs", { input: { amount: 5 } });
    const all = await call("GET", "/api/thread-list");
    expect(
      (all.body.threads as { threadId: string; title: string | null; branches: string[] }[]).map(
        (t) => [t.threadId, t.title, t.branches],
      ),
    ).toEqual([
      ["c", null, ["main"]],
      ["b", "Refund 30 for the teapot", ["main"]],
      ["a", "Refund 20 for the kettle", ["main"]],
    ]);
    expect(all.body.more).toBe(false);
    const found = await call("GET", "/api/thread-list?q=TEAPOT");
    expect((found.body.threads as { threadId: string }[]).map((t) => t.threadId)).toEqual(["b"]);
    const byId = await call("GET", "/api/thread-list?q=a");
    expect((byId.body.threads as { threadId: string }[]).map((t) => t.threadId)).toEqual([
      "b",
      "a",
    ]);
    const page = await call("GET", "/api/thread-list?limit=1&offset=1");
    expect([
      (page.body.threads as { threadId: string }[]).map((t) => t.threadId),
      page.body.more,
    ]).toEqual([["b"], true]);
    expect(await call("GET", "/api/thread-list?limit=0")).toEqual({
      status: 400,
      body: err("InvalidRequest", 'limit must be an integer from 1 to 500, got "0"'),
    });
    // Delete goes through DELETE /api/threads/:id; the listing then leaves it out.
    expect((await call("DELETE", "/api/threads/b")).body).toEqual({ deleted: ["b"] });
    const after = await call("GET", "/api/thread-list");
    expect((after.body.threads as { threadId: string }[]).map((t) => t.threadId)).toEqual([
      "c",
      "a",
    ]);
  });

  it("models: GET /api/models names them; a run's model chooses the graph; an unknown one is a 400", async () => {
    const stateStore = new MemoryStateStore();
    const agent = (model: string) =>
      buildReactAgent(
        new ScriptedChat(
          [{ content: `from ${model}`, usage: { inputTokens: 1, outputTokens: 1 } }],
          {
            model,
          },
        ),
        { tools: [], stateStore },
      );
    const call = client(
      createServer({
        graph: agent("m-a"),
        models: { current: "scripted:m-a", graphs: { "scripted:m-b": agent("m-b") } },
      }),
    );
    expect((await call("GET", "/api/models")).body).toEqual({
      current: "scripted:m-a",
      choices: ["scripted:m-a", "scripted:m-b"],
    });
    const b = await call("POST", "/api/threads/m/runs", { message: "hi", model: "scripted:m-b" });
    const a = await call("POST", "/api/threads/m/runs", { message: "hi again" });
    const texts = (r: typeof a) =>
      ((r.body.state as { messages: { content: string }[] }).messages.at(-1) ?? { content: "" })
        .content;
    expect([texts(b), texts(a)]).toEqual(["from m-b", "from m-a"]);
    // Usage says which model answered each run.
    expect(
      ((await call("GET", "/api/threads/m/metrics")).body.runs as { byModel: object }[]).map((r) =>
        Object.keys(r.byModel),
      ),
    ).toEqual([["m-b"], ["m-a"]]);
    expect(await call("POST", "/api/threads/m/runs", { message: "x", model: "gpt-9" })).toEqual({
      status: 400,
      body: err(
        "UnknownModel",
        'model "gpt-9" is not one this server offers; choose one of: scripted:m-a, scripted:m-b',
      ),
    });
    const plain = client(createServer({ graph: agent("m-a") }));
    expect((await plain("GET", "/api/models")).body).toEqual({ current: null, choices: [] });
    expect(() =>
      createServer({
        graph: agent("m-a"),
        models: {
          current: null,
          graphs: {
            other: buildReactAgent(new ScriptedChat(["x"]), {
              tools: [],
              stateStore: new MemoryStateStore(),
            }),
          },
        },
      }),
    ).toThrow(
      new TypeError(
        `createServer: models: the graph of "other" is not on the served graph's store; build every choice on the same stateStore`,
      ),
    );
  });

  it("cold: a new server over a reopened SQLite file answers the same history, branches, metrics and titles", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nodestep-studio-data-"));
    try {
      const path = join(dir, "t.db");
      const first = new SqliteStateStore({ path });
      const warm = client(createServer({ graph: buildRefundGraph({ stateStore: first }) }));
      await warm("POST", "/api/threads/c1/runs", { message: "Refund 250" });
      await warm("POST", "/api/threads/c1/runs", { resume: { approve: true } });
      await warm("POST", "/api/threads/c1/fork", { eventId: "c1/main/2", branchId: "b" });
      const routes = [
        "/api/threads/c1/history-view",
        "/api/threads/c1/branches",
        "/api/threads/c1/metrics",
        "/api/thread-list",
      ];
      const before = await Promise.all(routes.map((r) => warm("GET", r)));
      await first.close();
      const second = new SqliteStateStore({ path });
      const cold = client(createServer({ graph: buildRefundGraph({ stateStore: second }) }));
      const after = await Promise.all(routes.map((r) => cold("GET", r)));
      await second.close();
      expect(after).toEqual(before);
      expect(before.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
