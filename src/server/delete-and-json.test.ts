/**
 * Issue 13: the server's DELETE thread route and listing pages (item 9); deep bodies and
 * bodies with prototype keys answer 400 InvalidRequest (item 11; they answered 500 or were
 * run with the key silently dropped).
 */
import { describe, expect, it } from "vitest";
import { buildRefundGraph } from "../cli/fixtures/refund.fixture.js";
import { MemoryStateStore } from "../stores/index.js";
import { createServer } from "./index.js";

function serve() {
  const store = new MemoryStateStore();
  const app = createServer({ graph: buildRefundGraph({ stateStore: store }), allowedHosts: null });
  const call = async (method: string, path: string, body?: string) => {
    const res = await app.fetch(
      new Request(`http://localhost${path}`, {
        method,
        ...(body === undefined ? {} : { body, headers: { "content-type": "application/json" } }),
      }),
    );
    return { status: res.status, body: (await res.json()) as unknown };
  };
  return { store, call };
}

const deep = (n: number) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;

describe("server: deleting threads and listing pages", () => {
  it("DELETE /api/threads/:id deletes it (children with ?children=true); 404 when absent", async () => {
    const { store, call } = serve();
    const one = {
      type: "run_started" as const,
      runId: "r",
      step: 0,
      taskId: null,
      node: null,
      data: null,
    };
    for (const id of ["t", "t:sub", "u"]) await store.append(id, "main", [one], 0);
    expect(await call("GET", "/api/threads?limit=1&offset=1")).toMatchObject({
      status: 200,
      body: { threads: [{ threadId: (await store.listThreads())[1]!.threadId }] },
    });
    expect(await call("GET", "/api/threads?limit=0")).toEqual({
      status: 400,
      body: {
        error: {
          type: "InvalidRequest",
          message: 'limit must be an integer from 1 to 1000, got "0"',
        },
      },
    });
    expect(await call("DELETE", "/api/threads/t?children=true")).toEqual({
      status: 200,
      body: { deleted: ["t", "t:sub"] },
    });
    expect((await call("DELETE", "/api/threads/t")).status).toBe(404);
    expect(await call("DELETE", "/api/threads/u?children=yes")).toEqual({
      status: 400,
      body: { error: { type: "InvalidRequest", message: 'children must be "true" or "false"' } },
    });
    expect((await store.listThreads()).map((t) => t.threadId)).toEqual(["u"]);
  });
});

describe("server: deep and hostile JSON bodies", () => {
  it("answers 400 InvalidRequest for a body nested past the limit (it answered 500)", async () => {
    const { call, store } = serve();
    const r = await call(
      "POST",
      "/api/threads/t/runs",
      `{"input":{"messages":[],"x":${deep(5000)}}}`,
    );
    expect(r).toEqual({
      status: 400,
      body: {
        error: {
          type: "InvalidRequest",
          message: "The request body is nested deeper than 512 levels (the limit)",
        },
      },
    });
    expect(await store.listThreads()).toEqual([]);
  });

  it("refuses __proto__, constructor and prototype keys with 400 (they were dropped and run)", async () => {
    const { call, store } = serve();
    for (const key of ["__proto__", "constructor", "prototype"]) {
      const r = await call(
        "POST",
        "/api/threads/t/runs",
        `{"message":"refund 20","${key}":{"x":1}}`,
      );
      expect(r).toEqual({
        status: 400,
        body: {
          error: {
            type: "InvalidRequest",
            message: `${key}: the keys __proto__, constructor and prototype are not accepted`,
          },
        },
      });
    }
    const nested = await call("POST", "/api/threads", '{"threadId":"a","x":[{"__proto__":{}}]}');
    expect(nested.status).toBe(400);
    expect(await store.listThreads()).toEqual([]);
  });
});
