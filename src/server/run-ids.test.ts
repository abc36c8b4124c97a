/**
 * One id per run: the server's run id (its answer, `X-Nodestep-Run-Id`, the `run` event, the
 * runs routes) is the `RunResult.runId` and the `runId` of the events it stores; and
 * `RunOptions.runId`, which gives it.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { caught } from "../../test/helpers.js";
import { END, Graph, node, START } from "../graph/index.js";
import { defineState } from "../state/index.js";
import { MemoryStateStore } from "../stores/index.js";
import { createServer } from "./index.js";

const State = defineState({ n: z.number().default(0) });

function graph(stateStore = new MemoryStateStore()) {
  const add = node((s: typeof State.State) => ({ n: s.n + 1 }), { name: "add" });
  return new Graph(State, { name: "ids", stateStore }).flow(START.to(add), add.to(END));
}

const post = (app: ReturnType<typeof createServer>, path: string, body: unknown) =>
  app.fetch(
    new Request(`http://127.0.0.1${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );

const storedRunIds = async (store: MemoryStateStore, threadId: string) =>
  (await store.read(threadId, "main")).filter((e) => e.type === "run_started").map((e) => e.runId);

describe("one id per run", () => {
  it("a plain run's answer, a streamed run's header and run event, a detached run's info carry the stored run id", async () => {
    const store = new MemoryStateStore();
    const app = createServer({ graph: graph(store) });

    const plain = (await (await post(app, "/api/threads/t1/runs", { input: { n: 1 } })).json()) as {
      runId: string;
    };
    expect(plain.runId).toMatch(/^r-[0-9a-f]{16}$/);
    expect(await storedRunIds(store, "t1")).toEqual([plain.runId]);

    const streamed = await post(app, "/api/threads/t2/runs/stream", { input: { n: 1 } });
    const header = streamed.headers.get("x-nodestep-run-id");
    const text = await streamed.text();
    expect(text).toContain(
      `event: run\ndata: {"threadId":"t2","branchId":"main","runId":"${header}"}`,
    );
    expect(await storedRunIds(store, "t2")).toEqual([header]);

    const detached = (await (
      await post(app, "/api/threads/t3/runs", { input: { n: 1 }, detach: true })
    ).json()) as { runId: string };
    const joined = await app.fetch(
      new Request(`http://127.0.0.1/api/threads/t3/runs/${detached.runId}/stream`),
    );
    expect(await joined.text()).toContain("event: end");
    expect(await storedRunIds(store, "t3")).toEqual([detached.runId]);
  });

  it("RunOptions.runId names the run and its events; an empty one is refused", async () => {
    const store = new MemoryStateStore();
    const g = graph(store);
    const r = await g.invoke({ n: 1 }, { threadId: "t1", runId: "mine" });
    expect(r.runId).toBe("mine");
    expect(new Set((await store.read("t1", "main")).map((e) => e.runId))).toEqual(
      new Set(["mine"]),
    );
    const e = await caught(() => g.invoke({ n: 1 }, { threadId: "t2", runId: "" }));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toBe('Graph "ids": runId must be a non-empty string, got ""');
  });
});
