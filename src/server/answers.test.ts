import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryStateStore } from "../stores/index.js";
import { buildShopAgent } from "../studio/fixtures/shop-agent.js";
import { createServer, type ListeningServer, listen } from "./index.js";

const REFUND_CALL = {
  toolCalls: [
    {
      id: "c1",
      name: "refund",
      arguments: { orderId: "A-1", amount: 20, note: "late", express: false },
    },
  ],
};

describe("answers to interrupts and the tools list", () => {
  let server: ListeningServer;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(server.url + path, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: JSON.parse(text.startsWith("{") ? text : "null") as never };
  };
  beforeAll(async () => {
    const graph = buildShopAgent({
      stateStore: new MemoryStateStore(),
      approve: true,
      delayMs: 0,
      script: [REFUND_CALL, "Refunded.", REFUND_CALL, "Refunded again."],
    });
    server = await listen(createServer({ graph }), { port: 0 });
  });
  afterAll(() => server.close());

  it("GET /api/tools lists the model node's tools with their JSON schemas", async () => {
    const { status, body } = await call("GET", "/api/tools");
    expect(status).toBe(200);
    const tools = (body as { tools: { name: string; inputSchema: unknown }[] }).tools;
    expect(tools.map((t) => t.name)).toEqual([
      "lookup_order",
      "check_stock",
      "sales_chart",
      "refund",
    ]);
    expect(tools[3]).toEqual({
      name: "refund",
      description: "Refund an order.",
      inputSchema: {
        type: "object",
        properties: {
          orderId: { type: "string", description: "The order to refund" },
          amount: { type: "number", exclusiveMinimum: 0, description: "Amount in EUR" },
          note: { type: "string" },
          express: { type: "boolean" },
        },
        required: ["orderId", "amount", "note", "express"],
        additionalProperties: false,
        title: "RefundInput",
      },
    });
  });

  it.each([
    ["POST …/runs", "/runs"],
    ["POST …/runs/stream", "/runs/stream"],
  ])(
    "%s: a refused answer is 400 InvalidAnswer, the thread stays paused, a good answer goes on",
    async (_, route) => {
      const threadId = `t-answer${route.replace(/\//g, "-")}`;
      const paused = await call("POST", `/api/threads/${threadId}/runs`, { message: "refund A-1" });
      expect((paused.body as { status: string }).status).toBe("interrupted");
      const message =
        'Tool "refund" failed on call "c1": ValueError: ApprovalMiddleware: invalid answer for tool "refund" (call "c1"): key "approved" must be true or false; answer "yes", "no", true, false, { approved: true }, { approved: true, arguments: { ... } } or { approved: false, reason: "..." }';
      expect(
        await call("POST", `/api/threads/${threadId}${route}`, {
          resume: { "1:0#c1": { approved: "maybe" } },
        }),
      ).toEqual({ status: 400, body: { error: { type: "InvalidAnswer", message } } });
      // Edited arguments the tool's schema refuses.
      expect(
        await call("POST", `/api/threads/${threadId}${route}`, {
          resume: { "1:0#c1": { approved: true, arguments: { orderId: 5 } } },
        }),
      ).toEqual({
        status: 400,
        body: {
          error: {
            type: "InvalidAnswer",
            message:
              'Invalid arguments for tool "refund": orderId: Invalid input: expected string, received number; amount: Invalid input: expected number, received undefined; note: Invalid input: expected string, received undefined; express: Invalid input: expected boolean, received undefined (call "c1")',
          },
        },
      });
      const state = (await call("GET", `/api/threads/${threadId}/state`)).body as {
        interrupts: { key: string }[];
      };
      expect(state.interrupts.map((i) => i.key)).toEqual(["1:0#c1"]);
      const done = await call("POST", `/api/threads/${threadId}/runs`, {
        resume: { "1:0#c1": "yes" },
      });
      expect((done.body as { status: string }).status).toBe("completed");
    },
  );
});

describe("a refused answer among several of one task", () => {
  let server: ListeningServer;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(server.url + path, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as never };
  };
  const refund = (id: string, orderId: string, amount: number) => ({
    id,
    name: "refund",
    arguments: { orderId, amount, note: "late", express: false },
  });
  beforeAll(async () => {
    const graph = buildShopAgent({
      stateStore: new MemoryStateStore(),
      approve: true,
      delayMs: 0,
      script: [{ toolCalls: [refund("c1", "A-1", 20), refund("c2", "A-2", 500)] }, "Done."],
    });
    server = await listen(createServer({ graph }), { port: 0 });
  });
  afterAll(() => server.close());

  it("is 400 InvalidAnswer and keeps none of the answers: both stay pending, new answers are used", async () => {
    const paused = await call("POST", "/api/threads/two/runs", { message: "refund both" });
    expect((paused.body as { status: string }).status).toBe("interrupted");
    const refused = await call("POST", "/api/threads/two/runs", {
      resume: {
        "1:0#c1": {
          approved: true,
          arguments: { orderId: "A-1", amount: -5, note: "x", express: false },
        },
        "1:0#c2": { approved: false, reason: "first" },
      },
    });
    expect(refused).toEqual({
      status: 400,
      body: {
        error: {
          type: "InvalidAnswer",
          message:
            'Invalid arguments for tool "refund": amount: Too small: expected number to be >0 (call "c1")',
        },
      },
    });
    const state = (await call("GET", "/api/threads/two/state")).body as {
      interrupts: { key: string }[];
    };
    expect(state.interrupts.map((i) => i.key)).toEqual(["1:0#c1", "1:0#c2"]);
    const done = await call("POST", "/api/threads/two/runs", {
      resume: { "1:0#c1": "yes", "1:0#c2": { approved: false, reason: "second" } },
    });
    expect((done.body as { status: string }).status).toBe("completed");
    const after = (await call("GET", "/api/threads/two/state")).body as {
      interrupts: unknown[];
      state: { messages: { type: string; toolCallId?: string; content: string }[] };
    };
    expect(after.interrupts).toEqual([]);
    expect(
      after.state.messages.filter((m) => m.type === "tool").map((m) => [m.toolCallId, m.content]),
    ).toEqual([
      ["c1", '{"result":"refunded 20 EUR on A-1 (late)"}'],
      ["c2", "Tool call denied by a person: second"],
    ]);
  });
});
