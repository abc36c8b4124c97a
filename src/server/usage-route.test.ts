import { describe, expect, it } from "vitest";
import { buildReactAgent } from "../agents/react-agent.js";
import { ScriptedChat } from "../chat/scripted-chat.js";
import { ValueError } from "../errors/index.js";
import { MemoryStateStore } from "../stores/index.js";
import { createServer } from "./index.js";

const prices = {
  "gpt-4o-mini": { inputPerMillion: 0.15, outputPerMillion: 0.6, cachedInputPerMillion: 0.075 },
};

function serve(responses: ConstructorParameters<typeof ScriptedChat>[0]) {
  const stateStore = new MemoryStateStore();
  const graph = buildReactAgent(new ScriptedChat(responses, { model: "gpt-4o-mini" }), {
    tools: [],
    stateStore,
  });
  const app = createServer({ graph, prices, allowedHosts: null, apiKey: "k" });
  const call = async (method: string, path: string, body?: unknown, key = "k") => {
    const res = await app.fetch(
      new Request(`http://127.0.0.1${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  return { call, stateStore, app };
}

describe("server: usage and cost on the thread routes", () => {
  it("a run's answer has its usage; GET /usage has the branch's totals; a fork has its own", async () => {
    const { call, stateStore, app } = serve([
      {
        content: "One.",
        usage: { inputTokens: 2_000_000, outputTokens: 100_000, cachedInputTokens: 1_000_000 },
      },
      { content: "Two.", usage: { inputTokens: 1_000_000, outputTokens: 500_000 } },
      { content: "Alt.", usage: { inputTokens: 400_000, outputTokens: 0 } },
      { content: "Streamed.", usage: { inputTokens: 100_000, outputTokens: 0 } },
    ]);
    const first = await call("POST", "/api/threads/t1/runs", { message: "hi" });
    expect(first.status).toBe(200);
    // 1M uncached × 0.15 + 1M cached × 0.075 + 0.1M out × 0.6 = 0.15 + 0.075 + 0.06
    expect(first.body.usage).toEqual({
      usage: {
        inputTokens: 2_000_000,
        outputTokens: 100_000,
        totalTokens: 2_100_000,
        cachedInputTokens: 1_000_000,
        reasoningTokens: 0,
        calls: 1,
      },
      byModel: {
        "gpt-4o-mini": {
          inputTokens: 2_000_000,
          outputTokens: 100_000,
          totalTokens: 2_100_000,
          cachedInputTokens: 1_000_000,
          reasoningTokens: 0,
          calls: 1,
        },
      },
      cost: { usd: 0.285, byModel: { "gpt-4o-mini": 0.285 }, unpriced: [] },
    });
    const forkPoint = (await stateStore.read("t1", "main")).at(-1)!.id;
    const second = await call("POST", "/api/threads/t1/runs", { message: "more" });
    expect((second.body.usage as { cost: { usd: number } }).cost.usd).toBe(0.45);
    expect((second.body.threadUsage as { cost: { usd: number } }).cost.usd).toBe(0.735);
    const thread = await call("GET", "/api/threads/t1/usage");
    expect(thread.status).toBe(200);
    expect(thread.body).toMatchObject({
      threadId: "t1",
      branchId: "main",
      usage: { totalTokens: 3_600_000, calls: 2 },
      cost: { usd: 0.735 },
    });
    expect(
      (await call("POST", "/api/threads/t1/fork", { eventId: forkPoint, branchId: "alt" })).status,
    ).toBe(201);
    await call("POST", "/api/threads/t1/runs", { message: "other way", branchId: "alt" });
    const alt = await call("GET", "/api/threads/t1/usage?branchId=alt");
    expect(alt.body).toMatchObject({
      branchId: "alt",
      usage: { totalTokens: 2_500_000, calls: 2 },
      cost: { usd: 0.345 },
    });
    expect((await call("GET", "/api/threads/t1/usage")).body).toMatchObject({
      cost: { usd: 0.735 },
    });
    const streamed = await app.fetch(
      new Request("http://127.0.0.1/api/threads/t1/runs/stream", {
        method: "POST",
        headers: { authorization: "Bearer k", "content-type": "application/json" },
        body: JSON.stringify({ message: "and again", branchId: "alt" }),
      }),
    );
    const text = await streamed.text();
    const end = text.split("\n\n").find((block) => block.startsWith("event: end"));
    const data = JSON.parse(
      end!
        .split("\n")
        .find((l) => l.startsWith("data: "))!
        .slice(6),
    );
    // 0.345 + 100 000 × 0.15 / 1e6 = 0.36
    expect(data.threadUsage).toMatchObject({
      usage: { totalTokens: 2_600_000, calls: 3 },
      cost: { usd: 0.36 },
    });
    const nope = await call("GET", "/api/threads/t1/usage?branchId=nope");
    expect(nope.status).toBe(404);
    expect((nope.body.error as { type: string }).type).toBe("UnknownBranchError");
  });

  it("404 for an unknown thread or branch, 401 without the API key; invalid prices are refused", async () => {
    const { call } = serve([]);
    expect(await call("GET", "/api/threads/none/usage")).toEqual({
      status: 404,
      body: { error: { type: "UnknownThread", message: 'Thread "none" has no events' } },
    });
    expect((await call("GET", "/api/threads/none/usage", undefined, "wrong")).status).toBe(401);
    const graph = buildReactAgent(new ScriptedChat([]), {
      tools: [],
      stateStore: new MemoryStateStore(),
    });
    expect(() =>
      createServer({ graph, prices: { m: { inputPerMillion: -1, outputPerMillion: 1 } } }),
    ).toThrow(
      new ValueError(
        'createServer: prices["m"].inputPerMillion must be a number ≥ 0 (US dollars per million tokens), got -1',
      ),
    );
  });
});
