/**
 * The server's id limit (docs/server.md, "Ids"): a thread, branch, run or chat id in a path or
 * a body is 1 to 200 characters without "/" or control characters; a breakpoint list at most
 * 1,000 node names. One past each limit answers 400 InvalidRequest naming the field.
 */
import { describe, expect, it } from "vitest";
import { gatedGraph } from "./background-runs.fixture.js";
import { createServer } from "./index.js";

function app() {
  const { graph } = gatedGraph();
  const server = createServer({ graph: graph as never });
  return async (method: string, path: string, body?: unknown) => {
    const r = await server.request(`http://127.0.0.1${path}`, {
      method,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      headers: { "content-type": "application/json" },
    });
    return { status: r.status, body: await r.json() };
  };
}

const invalid = (message: string) => ({
  status: 400,
  body: { error: { type: "InvalidRequest", message } },
});

describe("the server's id limits", () => {
  it("a thread id of 200 characters is taken, one of 201 is refused, in a body and in a path", async () => {
    const call = app();
    const ok = "t".repeat(200);
    expect(await call("POST", "/api/threads", { threadId: ok })).toEqual({
      status: 201,
      body: { threadId: ok },
    });
    const long = "t".repeat(201);
    expect(await call("POST", "/api/threads", { threadId: long })).toEqual(
      invalid("threadId: Too big: expected string to have <=200 characters"),
    );
    expect(await call("GET", `/api/threads/${long}/state`)).toEqual(
      invalid("threadId: Too big: expected string to have <=200 characters"),
    );
    expect(await call("GET", `/api/threads/${encodeURIComponent("a\nb")}/history`)).toEqual(
      invalid("threadId: must not contain '/' or control characters"),
    );
    expect(await call("GET", `/api/threads/${encodeURIComponent("a/b")}/history`)).toEqual(
      invalid("threadId: must not contain '/' or control characters"),
    );
  });

  it("a branch id over 200 characters and a breakpoint list over 1,000 names are refused", async () => {
    const call = app();
    expect(await call("POST", "/api/threads/t1/runs", { branchId: "b".repeat(201) })).toEqual(
      invalid("branchId: Too big: expected string to have <=200 characters"),
    );
    const names = Array.from({ length: 1001 }, () => "work");
    expect(await call("POST", "/api/threads/t1/runs", { interruptBefore: names })).toEqual(
      invalid('interruptBefore: must be a list of node names (at most 1,000) or "*"'),
    );
  });

  it("a branchId in a query is held to the same rule on every route (it was 404 on some, 200 on the runs list)", async () => {
    const call = app();
    const routes = ["state", "history", "usage", "history-view", "metrics", "runs", "ui-messages"];
    for (const route of routes) {
      expect(await call("GET", `/api/threads/t1/${route}?branchId=a%2Fb`)).toEqual(
        invalid("branchId: must not contain '/' or control characters"),
      );
      expect(await call("GET", `/api/threads/t1/${route}?branchId=${"b".repeat(201)}`)).toEqual(
        invalid("branchId: at most 200 characters, got 201"),
      );
    }
  });
});
