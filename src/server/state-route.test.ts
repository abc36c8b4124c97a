import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildRefundGraph } from "../cli/fixtures/refund.fixture.js";
import { MemoryStateStore } from "../stores/index.js";
import { createServer, type ListeningServer, listen } from "./index.js";

const err = (type: string, message: string) => ({ error: { type, message } });

describe("POST /api/threads/:threadId/state", () => {
  let server: ListeningServer;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(server.url + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  beforeAll(async () => {
    const graph = buildRefundGraph({ stateStore: new MemoryStateStore() });
    server = await listen(createServer({ graph }), { port: 0 });
  });
  afterAll(() => server.close());

  it("writes values through the reducers, keeps what was next, and answers the new state", async () => {
    const run = await post("/api/threads/t-edit/runs", { message: "Refund 250 for order A-1" });
    expect(run.body.status).toBe("interrupted");
    const edited = await post("/api/threads/t-edit/state", { values: { amount: 90 } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      threadId: "t-edit",
      branchId: "main",
      next: ["approve"],
      state: { amount: 90, approved: null },
    });
    const got = (await (await fetch(`${server.url}/api/threads/t-edit/state`)).json()) as {
      state: { amount: number };
      lastEventId: string;
    };
    expect(got.state.amount).toBe(90);
    expect(got.lastEventId).toBe(edited.body.lastEventId);
  });

  it("answers 4xx with a typed error for bad input, and leaves the state as it was", async () => {
    await post("/api/threads/t-bad/runs", { message: "Refund 250 for order A-1" });
    expect(await post("/api/threads/t-none/state", { values: { amount: 1 } })).toEqual({
      status: 404,
      body: err("UnknownThread", 'Thread "t-none" has no events'),
    });
    expect(await post("/api/threads/t-bad/state", { amount: 1 })).toEqual({
      status: 400,
      body: err(
        "InvalidRequest",
        'values: Invalid input: expected record, received undefined; body: Unrecognized key: "amount"',
      ),
    });
    expect(await post("/api/threads/t-bad/state", { values: { amount: "lots" } })).toEqual({
      status: 400,
      body: err(
        "StateUpdateError",
        'Invalid value for state field "amount" written by the update given to updateState: Invalid input: expected number, received string',
      ),
    });
    expect(await post("/api/threads/t-bad/state", { values: { nope: 1 } })).toEqual({
      status: 400,
      body: err(
        "StateUpdateError",
        'The update given to updateState wrote unknown state field "nope"; declared fields: messages, amount, approved',
      ),
    });
    expect(
      await post("/api/threads/t-bad/state", { values: { amount: 1 }, asNode: "nope" }),
    ).toEqual({
      status: 400,
      body: err(
        "ValueError",
        'Graph "refund": updateState asNode "nope" is not a node of the flow; known nodes: plan, approve, reply',
      ),
    });
    expect(
      await post("/api/threads/t-bad/state", { values: { amount: 1 }, branchId: "b-x" }),
    ).toEqual({
      status: 404,
      body: err("UnknownBranchError", 'Thread "t-bad" has no branch "b-x"'),
    });
    const after = (await (await fetch(`${server.url}/api/threads/t-bad/state`)).json()) as {
      state: { amount: number };
    };
    expect(after.state.amount).toBe(250);
  });
});

describe("run bodies: interruptBefore / interruptAfter", () => {
  let server: ListeningServer;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(server.url + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  beforeAll(async () => {
    const graph = buildRefundGraph({ stateStore: new MemoryStateStore() });
    server = await listen(createServer({ graph }), { port: 0 });
  });
  afterAll(() => server.close());

  it("pause the run at the breakpoint; an empty body continues past it", async () => {
    const paused = await post("/api/threads/t-bp/runs", {
      message: "Refund 50 for order A-2",
      interruptBefore: ["reply"],
    });
    expect(paused.body.status).toBe("interrupted");
    expect(paused.body.interrupts).toEqual([]);
    const state = (await (await fetch(`${server.url}/api/threads/t-bp/state`)).json()) as {
      next: string[];
      breakpoint: unknown;
    };
    expect([state.next, state.breakpoint]).toEqual([
      ["reply"],
      { when: "before", step: 1, nodes: ["reply"] },
    ]);
    const done = await post("/api/threads/t-bp/runs", {});
    expect(done.body.status).toBe("completed");
  });

  it('refuses breakpoints that are not node lists or "*"', async () => {
    expect(
      await post("/api/threads/t-bp2/runs", { message: "x", interruptAfter: "reply" }),
    ).toEqual({
      status: 400,
      body: err(
        "InvalidRequest",
        'interruptAfter: must be a list of node names (at most 1,000) or "*"',
      ),
    });
  });
});
