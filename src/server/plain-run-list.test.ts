/** A plain `POST /api/threads/:id/runs` is a run of the server's list: `running` while it goes on, then its end status. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { END, Graph, node, START } from "../graph/index.js";
import { defineState } from "../state/index.js";
import { MemoryStateStore } from "../stores/index.js";
import { createServer } from "./index.js";

const S = defineState({ n: z.number().default(0) });

/** A graph whose node waits for `open()` before it answers (or throws when `fail` is set). */
function gated() {
  let open: () => void = () => {};
  let entered: () => void = () => {};
  const inside = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let fail = false;
  const work = node(
    async (s: { n: number }, ctx) => {
      entered();
      await new Promise<void>((resolve, reject) => {
        void gate.then(resolve);
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
      });
      if (fail) throw new Error("the node failed");
      return { n: s.n + 1 };
    },
    { name: "work" },
  );
  const more = node((s: { n: number }) => ({ n: s.n * 10 }), { name: "more" });
  const graph = new Graph(S, { name: "gated", stateStore: new MemoryStateStore() }).flow(
    START.to(work),
    work.to(more),
    more.to(END),
  );
  return {
    graph,
    inside,
    open,
    failNext: () => {
      fail = true;
    },
  };
}

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

type Listed = { runId: string; status: string; detached: boolean; endedAt: string | null }[];

describe("plain runs in the run list", () => {
  it("lists a plain run as running while it goes on, then done; its answer has the same run id", async () => {
    const g = gated();
    const call = client(createServer({ graph: g.graph }));
    const answer = call("POST", "/api/threads/t1/runs", { input: { n: 1 } });
    await g.inside;
    const during = (await call("GET", "/api/threads/t1/runs")).body.runs as Listed;
    expect(during.map((r) => [r.status, r.detached, r.endedAt])).toEqual([
      ["running", false, null],
    ]);
    expect(during[0]!.runId).toMatch(/^r-[0-9a-f]{16}$/);
    g.open();
    const done = await answer;
    expect(done.status).toBe(200);
    expect([done.body.runId, done.body.status, done.body.state]).toEqual([
      during[0]!.runId,
      "completed",
      { n: 20 },
    ]);
    const after = (await call("GET", "/api/threads/t1/runs")).body.runs as Listed;
    expect(after.map((r) => [r.runId, r.status, r.detached])).toEqual([
      [during[0]!.runId, "done", false],
    ]);
    expect(typeof after[0]!.endedAt).toBe("string");
    // The run's own route and the store's run id agree with the list.
    const one = await call("GET", `/api/threads/t1/runs/${during[0]!.runId}`);
    expect([one.status, one.body.status]).toEqual([200, "done"]);
    const stored = await g.graph.history("t1");
    expect(stored.filter((e) => e.type === "run_started").map((e) => e.runId)).toEqual([
      during[0]!.runId,
    ]);
  });

  it("a plain run that fails is listed as error and answers its error", async () => {
    const g = gated();
    g.failNext();
    const call = client(createServer({ graph: g.graph }));
    const answer = call("POST", "/api/threads/t2/runs", { input: { n: 1 } });
    await g.inside;
    const during = (await call("GET", "/api/threads/t2/runs")).body.runs as Listed;
    expect(during.map((r) => r.status)).toEqual(["running"]);
    g.open();
    const failed = await answer;
    expect(failed.status).toBe(500);
    expect((failed.body.error as { message: string }).message).toBe("the node failed");
    const after = (await call("GET", "/api/threads/t2/runs")).body.runs as Listed;
    expect(after.map((r) => [r.runId, r.status])).toEqual([[during[0]!.runId, "error"]]);
  });

  it("a plain run can be cancelled through the cancel route: listed as cancelled", async () => {
    const g = gated();
    const call = client(createServer({ graph: g.graph }));
    const answer = call("POST", "/api/threads/t3/runs", { input: { n: 1 } });
    await g.inside;
    const [run] = (await call("GET", "/api/threads/t3/runs")).body.runs as Listed;
    const cancelled = await call("POST", `/api/threads/t3/runs/${run!.runId}/cancel`, {});
    expect([cancelled.status, cancelled.body.status]).toEqual([200, "cancelled"]);
    const failed = await answer;
    expect([failed.status, failed.body.error]).toEqual([
      500,
      { type: "RunCancelledError", message: 'Run of graph "gated" was cancelled' },
    ]);
  });
});
