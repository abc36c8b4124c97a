/** `GET /api/threads/:id/branches` reads the thread's branches with `store.listBranches`, not the thread listing. */
import { describe, expect, it } from "vitest";
import { buildRefundGraph } from "../cli/fixtures/refund.fixture.js";
import { MemoryStateStore } from "../stores/index.js";
import type { StateStore } from "../stores/types.js";
import { createServer } from "./index.js";

describe("GET /api/threads/:id/branches", () => {
  it("asks listBranches once for the thread and never lists threads", async () => {
    const inner = new MemoryStateStore();
    const calls: string[] = [];
    const store = new Proxy(inner, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (key === "listThreads") {
          return () => Promise.reject(new Error("the branch listing must not list threads"));
        }
        if (key === "listBranches") {
          return (threadId: string) => {
            calls.push(threadId);
            return target.listBranches(threadId);
          };
        }
        return typeof value === "function" ? value.bind(target) : value;
      },
    }) as StateStore;
    const app = createServer({ graph: buildRefundGraph({ stateStore: store }) });
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await app.fetch(
        new Request(`http://127.0.0.1${path}`, {
          method,
          headers: { "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      );
      return { status: res.status, body: await res.json() };
    };
    await call("POST", "/api/threads/t1/runs", { message: "Refund 250" });
    await call("POST", "/api/threads/t1/fork", { eventId: "t1/main/2", branchId: "b" });
    calls.length = 0;
    expect(await call("GET", "/api/threads/t1/branches")).toEqual({
      status: 200,
      body: {
        threadId: "t1",
        branches: [
          {
            branchId: "main",
            parent: null,
            lastSeq: 4,
            children: [
              {
                branchId: "b",
                parent: {
                  branchId: "main",
                  seq: 2,
                  eventId: "t1/main/2",
                  summary: "step_committed: ai: A refund of 250 EUR needs approval. · also amount",
                },
                lastSeq: 2,
                children: [],
              },
            ],
          },
        ],
      },
    });
    expect(calls).toEqual(["t1"]);
    expect(await call("GET", "/api/threads/nope/branches")).toEqual({
      status: 404,
      body: { error: { type: "UnknownThread", message: 'Thread "nope" has no events' } },
    });
    expect(calls).toEqual(["t1", "nope"]);
  });
});
