/** The thread-list search looks at the 1,000 most recently updated threads only (MAX_SEARCH_THREADS). */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { END, Graph, node, START } from "../graph/index.js";
import { defineState } from "../state/index.js";
import { MemoryStateStore } from "../stores/index.js";
import { createServer } from "./index.js";
import { MAX_SEARCH_THREADS } from "./thread-list-route.js";

describe("thread-list search limit", () => {
  it("finds an id among the 1,000 most recently updated threads, not beyond, until it is updated", async () => {
    expect(MAX_SEARCH_THREADS).toBe(1000);
    const store = new MemoryStateStore();
    const S = defineState({ n: z.number().default(0) });
    const a = node(() => ({}), { name: "a" });
    const graph = new Graph(S, { name: "g", stateStore: store }).flow(START.to(a), a.to(END));
    const ev = { type: "run_started" as const, runId: "r1", step: null, taskId: null, node: null };
    // The oldest thread first, then 1,000 newer ones (distinct times, so the order is known).
    await store.append("needle-old", "main", [{ ...ev, data: {} }], 0);
    await new Promise((r) => setTimeout(r, 5));
    for (let i = 0; i < MAX_SEARCH_THREADS; i++) {
      await store.append(`t${i}`, "main", [{ ...ev, data: {} }], 0);
    }
    const app = createServer({ graph });
    const search = async (q: string) =>
      (await (await app.fetch(new Request(`http://127.0.0.1/api/thread-list?q=${q}`))).json()) as {
        threads: { threadId: string }[];
        more: boolean;
      };
    expect(await search("needle")).toEqual({ threads: [], more: false });
    await store.append("needle-old", "main", [{ ...ev, data: {} }], 1);
    const found = await search("needle");
    expect([found.threads.map((t) => t.threadId), found.more]).toEqual([["needle-old"], false]);
  });
});
