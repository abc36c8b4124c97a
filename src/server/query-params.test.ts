/**
 * Unknown query parameters answer 400 InvalidRequest on every route of the API, naming the
 * parameter and the route's own (they were ignored: `GET …/metrics?branch=x` answered for
 * `main`, while unknown body fields answered 400).
 */
import { describe, expect, it } from "vitest";
import { buildRefundGraph } from "../cli/fixtures/refund.fixture.js";
import { MemoryStateStore } from "../stores/index.js";
import { createServer } from "./index.js";

/** Each route's own query parameters: the spec this test holds the routes to. */
const ALLOWED: Record<string, string[]> = {
  "GET /api/graph": [],
  "GET /api/tools": [],
  "GET /api/threads": ["limit", "offset"],
  "POST /api/threads": [],
  "GET /api/threads/:threadId/state": ["branchId", "eventId"],
  "POST /api/threads/:threadId/state": [],
  "GET /api/threads/:threadId/history": ["branchId"],
  "GET /api/threads/:threadId/usage": ["branchId"],
  "GET /api/threads/:threadId/history-view": ["branchId", "limit"],
  "GET /api/threads/:threadId/branches": [],
  "GET /api/threads/:threadId/metrics": ["branchId", "runId"],
  "GET /api/thread-list": ["q", "limit", "offset"],
  "GET /api/models": [],
  "POST /api/threads/:threadId/runs": [],
  "POST /api/threads/:threadId/runs/stream": [],
  "GET /api/threads/:threadId/runs": ["branchId"],
  "GET /api/threads/:threadId/runs/:runId": [],
  "GET /api/threads/:threadId/runs/:runId/stream": ["lastEventId"],
  "POST /api/threads/:threadId/runs/:runId/cancel": [],
  "POST /api/threads/:threadId/ui-stream": ["branchId", "onDisconnect"],
  "GET /api/threads/:threadId/ui-stream/:chatId/stream": ["branchId"],
  "GET /api/threads/:threadId/ui-messages": ["branchId"],
  "POST /api/threads/:threadId/fork": [],
  "DELETE /api/threads/:threadId": ["children"],
};

function serve() {
  const app = createServer({
    graph: buildRefundGraph({ stateStore: new MemoryStateStore() }),
    allowedHosts: null,
  });
  return async (method: string, path: string) => {
    const res = await app.fetch(
      new Request(`http://localhost${path}`, {
        method,
        ...(method === "POST"
          ? { body: "{}", headers: { "content-type": "application/json" } }
          : {}),
      }),
    );
    return { status: res.status, body: (await res.json()) as unknown };
  };
}

const concrete = (path: string) =>
  path.replace(":threadId", "t1").replace(":runId", "r-0000000000000000").replace(":chatId", "c1");

describe("server: unknown query parameters", () => {
  it("GET …/metrics?branch=x answers 400 naming branch and the route's branchId, runId", async () => {
    const call = serve();
    expect(await call("GET", "/api/threads/t1/metrics?branch=x")).toEqual({
      status: 400,
      body: {
        error: {
          type: "InvalidRequest",
          message:
            'Unknown query parameter "branch": GET /api/threads/:threadId/metrics takes branchId, runId',
        },
      },
    });
  });

  it("every route of GET /api refuses one it does not take, and /health and /api too", async () => {
    const call = serve();
    const { routes } = (await call("GET", "/api")).body as { routes: string[] };
    expect([...routes].sort()).toEqual(Object.keys(ALLOWED).sort());
    for (const route of [...routes, "GET /api", "GET /health"]) {
      const [method, path] = route.split(" ") as [string, string];
      const allowed = ALLOWED[route] ?? [];
      const answer = await call(method, `${concrete(path)}?zz=1`);
      expect(answer, route).toEqual({
        status: 400,
        body: {
          error: {
            type: "InvalidRequest",
            message: `Unknown query parameter "zz": ${route} takes ${
              allowed.length === 0 ? "no query parameters" : allowed.join(", ")
            }`,
          },
        },
      });
    }
  });

  it("every route refuses one of its own parameters given twice, naming it (one was used)", async () => {
    const call = serve();
    let checked = 0;
    for (const [route, allowed] of Object.entries(ALLOWED)) {
      const [method, path] = route.split(" ") as [string, string];
      for (const name of allowed) {
        const answer = await call(method, `${concrete(path)}?${name}=1&${name}=2`);
        expect(answer, `${route} ${name}`).toEqual({
          status: 400,
          body: {
            error: {
              type: "InvalidRequest",
              message: `Query parameter "${name}" is given 2 times: ${route} takes one value of each`,
            },
          },
        });
        checked++;
      }
    }
    expect(checked).toBe(20);
    expect(await call("GET", "/api/threads?limit=1&offset=0&limit=2&limit=3")).toEqual({
      status: 400,
      body: {
        error: {
          type: "InvalidRequest",
          message:
            'Query parameter "limit" is given 3 times: GET /api/threads takes one value of each',
        },
      },
    });
  });

  it("a route's own parameters pass the check (the route's answer, not an unknown-parameter 400)", async () => {
    const call = serve();
    expect(await call("GET", "/api/threads?limit=2&offset=0")).toEqual({
      status: 200,
      body: { threads: [] },
    });
    expect(await call("GET", "/api/threads/t1/metrics?branchId=main&runId=r-1")).toEqual({
      status: 404,
      body: { error: { type: "UnknownThread", message: 'Thread "t1" has no events' } },
    });
    expect(await call("GET", "/api/threads/t1/history?branchId=main")).toEqual({
      status: 404,
      body: { error: { type: "UnknownThread", message: 'Thread "t1" has no events' } },
    });
  });
});
