/**
 * `GET /api/threads` lists one page: 100 threads without a `limit`, at most 1,000 with one
 * (400 InvalidRequest past it); `offset` pages on. (It listed every thread of the store.)
 */
import { describe, expect, it } from "vitest";
import { buildRefundGraph } from "../cli/fixtures/refund.fixture.js";
import { MemoryStateStore } from "../stores/index.js";
import { createServer } from "./index.js";
import { DEFAULT_THREADS_PAGE, MAX_THREADS_PAGE } from "./thread-routes.js";

describe("GET /api/threads: page size", () => {
  it("answers the 100 most recent by default, up to 1,000 with limit, 400 past it", async () => {
    expect([DEFAULT_THREADS_PAGE, MAX_THREADS_PAGE]).toEqual([100, 1000]);
    const store = new MemoryStateStore();
    const ev = { type: "run_started" as const, runId: "r", step: null, taskId: null, node: null };
    for (let i = 0; i < MAX_THREADS_PAGE + 1; i++) {
      await store.append(`t${i}`, "main", [{ ...ev, data: {} }], 0);
    }
    const all = (await store.listThreads()).map((t) => t.threadId);
    expect(all.length).toBe(1001);
    const app = createServer({
      graph: buildRefundGraph({ stateStore: store }),
      allowedHosts: null,
    });
    const get = async (query: string) => {
      const res = await app.fetch(new Request(`http://localhost/api/threads${query}`));
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const ids = (body: Record<string, unknown>) =>
      (body.threads as { threadId: string }[]).map((t) => t.threadId);

    const first = await get("");
    expect([first.status, ids(first.body)]).toEqual([200, all.slice(0, 100)]);
    const most = await get("?limit=1000");
    expect([most.status, ids(most.body)]).toEqual([200, all.slice(0, 1000)]);
    const rest = await get("?limit=1000&offset=1000");
    expect([rest.status, ids(rest.body)]).toEqual([200, all.slice(1000)]);
    const second = await get("?offset=100");
    expect([second.status, ids(second.body)]).toEqual([200, all.slice(100, 200)]);
    expect(await get("?limit=1001")).toEqual({
      status: 400,
      body: {
        error: {
          type: "InvalidRequest",
          message: 'limit must be an integer from 1 to 1000, got "1001"',
        },
      },
    });
  });
});
