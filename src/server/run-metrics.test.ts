import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent } from "../agents/react-agent.js";
import { HumanMessage } from "../chat/messages.js";
import { ScriptedChat } from "../chat/scripted-chat.js";
import { buildRefundGraph } from "../cli/fixtures/refund.fixture.js";
import { checkPrices } from "../middleware/prices.js";
import { usageFromEvents } from "../middleware/usage-totals.js";
import { MemoryStateStore } from "../stores/index.js";
import type { StoredEvent } from "../stores/types.js";
import { tool } from "../tools/tool.js";
import { runMetrics } from "./run-metrics.js";

const lookup = tool(({ q }: { q: string }) => `found ${q}`, {
  name: "lookup",
  description: "Look up.",
  input: z.object({ q: z.string() }),
});
const fails = tool(
  (): string => {
    throw new Error("no stock data");
  },
  { name: "stock", description: "Stock.", input: z.object({}) },
);

/** The events with `createdAt` set from a list of times (ms), by position. */
const at = (events: StoredEvent[], times: number[]): StoredEvent[] => {
  expect(events.length).toBe(times.length);
  return events.map((e, i) => ({ ...e, createdAt: times[i]! }));
};

const prices = checkPrices({ "m-1": { inputPerMillion: 1_000, outputPerMillion: 2_000 } });

describe("runMetrics", () => {
  it("times a run, its nodes and their model and tool calls from the events' times; tokens and cost per node", async () => {
    const store = new MemoryStateStore();
    const agent = buildReactAgent(
      new ScriptedChat(
        [
          {
            content: null,
            toolCalls: [
              { id: "c1", name: "lookup", arguments: { q: "a" } },
              { id: "c2", name: "stock", arguments: {} },
            ],
            usage: { inputTokens: 100, outputTokens: 10, totalTokens: 110 },
          },
          { content: "Done.", usage: { inputTokens: 200, outputTokens: 20, totalTokens: 220 } },
        ],
        { model: "m-1" },
      ),
      { tools: [lookup, fails], stateStore: store, toolErrors: "return" },
    );
    const result = await agent.invoke(
      { messages: [HumanMessage({ content: "go" })] },
      { threadId: "t" },
    );
    // run_started, commit of think, the kept result of lookup (task_cache), commit of act, commit of think, run_finished
    const events = at(await agent.history("t"), [1_000, 1_300, 1_320, 1_350, 1_800, 1_810]);
    const [run] = runMetrics(agent.state, events, agent.name, prices);
    const ids = (await agent.getState("t")).state.messages.map((m) => m.id);
    expect(run).toEqual({
      runId: result.runId,
      status: "completed",
      startedAt: 1_000,
      latencyMs: 810,
      modelCalls: 2,
      toolCalls: 2,
      usage: {
        inputTokens: 300,
        outputTokens: 30,
        totalTokens: 330,
        cachedInputTokens: 0,
        reasoningTokens: 0,
        calls: 2,
      },
      byModel: {
        "m-1": {
          inputTokens: 300,
          outputTokens: 30,
          totalTokens: 330,
          cachedInputTokens: 0,
          reasoningTokens: 0,
          calls: 2,
        },
      },
      cost: { usd: 0.36, byModel: { "m-1": 0.36 }, unpriced: [] },
      nodes: [
        {
          node: "think",
          tasks: 2,
          latencyMs: 300 + 450,
          modelCalls: 2,
          toolCalls: 0,
          usage: {
            inputTokens: 300,
            outputTokens: 30,
            totalTokens: 330,
            cachedInputTokens: 0,
            reasoningTokens: 0,
            calls: 2,
          },
          cost: { usd: 0.36, byModel: { "m-1": 0.36 }, unpriced: [] },
        },
        {
          node: "act",
          tasks: 1,
          latencyMs: 50,
          modelCalls: 0,
          toolCalls: 2,
          usage: {
            inputTokens: 0,
            outputTokens: 0,
            totalTokens: 0,
            cachedInputTokens: 0,
            reasoningTokens: 0,
            calls: 0,
          },
          cost: { usd: 0, byModel: {}, unpriced: [] },
        },
      ],
      spans: [
        {
          id: "run",
          parentId: null,
          kind: "run",
          name: agent.name,
          step: null,
          startMs: 0,
          endMs: 810,
          status: "ok",
          detail: "completed",
        },
        expect.objectContaining({ kind: "node", name: "think", step: 0, startMs: 0, endMs: 300 }),
        {
          id: `model:${ids[1]}`,
          parentId: run!.spans[1]!.id,
          kind: "model",
          name: "m-1",
          step: 0,
          startMs: 0,
          endMs: 300,
          status: "ok",
          detail: "100 in · 10 out",
        },
        expect.objectContaining({ kind: "node", name: "act", step: 1, startMs: 300, endMs: 350 }),
        {
          id: "tool:c1",
          parentId: run!.spans[3]!.id,
          kind: "tool",
          name: "lookup",
          step: 1,
          startMs: 300,
          endMs: 320,
          status: "ok",
          detail: "→ found a",
        },
        {
          id: "tool:c2",
          parentId: run!.spans[3]!.id,
          kind: "tool",
          name: "stock",
          step: 1,
          startMs: 300,
          endMs: 350,
          status: "error",
          detail: expect.stringMatching(/^✗ .*no stock data/),
        },
        expect.objectContaining({ kind: "node", name: "think", step: 2, startMs: 350, endMs: 800 }),
        expect.objectContaining({ kind: "model", name: "m-1", detail: "200 in · 20 out" }),
      ],
    });
    // The run's totals are the usage ledger's.
    expect(run!.usage).toEqual(usageFromEvents(events, { runId: result.runId }).usage);
  });

  it("splits a paused run and its resume into two runs; a failed node is an error span", async () => {
    const graph = buildRefundGraph({ stateStore: new MemoryStateStore() });
    await graph.invoke({ messages: [HumanMessage({ content: "Refund 250" })] }, { threadId: "p" });
    await graph.invoke(null, { threadId: "p", resume: { approve: true } });
    await graph
      .invoke({ messages: [HumanMessage({ content: "explode" })] }, { threadId: "p" })
      .catch(() => {});
    const events = await graph.history("p");
    const times = events.map((_, i) => 10 * i);
    const runs = runMetrics(graph.state, at(events, times), graph.name, null);
    const shape = runs.map((r) => ({
      status: r.status,
      latencyMs: r.latencyMs,
      cost: r.cost,
      spans: r.spans
        .filter((s) => s.kind !== "run")
        .map((s) => `${s.kind} ${s.name} ${s.startMs}-${s.endMs} ${s.status} ${s.detail}`),
    }));
    expect(shape).toEqual([
      {
        status: "interrupted",
        latencyMs: 30,
        cost: null,
        spans: ["node plan 0-10 ok ", "node approve 10-20 interrupted asks approve"],
      },
      {
        status: "completed",
        latencyMs: 30,
        cost: null,
        spans: ["node approve 0-10 ok ", "node reply 10-20 ok "],
      },
      {
        status: "failed",
        latencyMs: 10,
        cost: null,
        spans: ["node plan 0-10 error Error: the planner exploded"],
      },
    ]);
  });

  it("a run without an end that a later run followed is stopped (its process died), not running", async () => {
    const graph = buildRefundGraph({ stateStore: new MemoryStateStore() });
    await graph.invoke({ messages: [HumanMessage({ content: "Refund 50" })] }, { threadId: "k" });
    await graph.invoke({ messages: [HumanMessage({ content: "Refund 60" })] }, { threadId: "k" });
    // What a SIGKILL in the first run leaves: its events without its run_finished.
    const all = await graph.history("k");
    const killed = all.filter((e, i) => !(e.type === "run_finished" && i < all.length - 1));
    expect(killed.map((e) => e.type)).toEqual([
      "run_started",
      "step_committed",
      "step_committed",
      "run_started",
      "step_committed",
      "step_committed",
      "run_finished",
    ]);
    const runs = runMetrics(graph.state, at(killed, [0, 10, 20, 100, 110, 120, 130]), "g", null);
    expect(runs.map((r) => [r.status, r.latencyMs, r.spans[0]])).toEqual([
      [
        "stopped",
        20,
        {
          id: "run",
          parentId: null,
          kind: "run",
          name: "g",
          step: null,
          startMs: 0,
          endMs: 20,
          status: "error",
          detail: "stopped: no end in the log (its process died), and a later run started",
        },
      ],
      [
        "completed",
        30,
        {
          id: "run",
          parentId: null,
          kind: "run",
          name: "g",
          step: null,
          startMs: 0,
          endMs: 30,
          status: "ok",
          detail: "completed",
        },
      ],
    ]);
    // The last run without an end may still be going on.
    const going = runMetrics(graph.state, at(killed.slice(0, 5), [0, 10, 20, 100, 110]), "g", null);
    expect(going.map((r) => r.status)).toEqual(["stopped", "running"]);
  });

  it('a run of the parent branch with no end before the fork point is "forked", measured up to it', async () => {
    const store = new MemoryStateStore();
    const agent = buildReactAgent(
      new ScriptedChat(
        [
          {
            content: null,
            toolCalls: [{ id: "c1", name: "lookup", arguments: { q: "a" } }],
            usage: { inputTokens: 100, outputTokens: 10, totalTokens: 110 },
          },
          { content: "Done.", usage: { inputTokens: 200, outputTokens: 20, totalTokens: 220 } },
          { content: "Again.", usage: { inputTokens: 300, outputTokens: 30, totalTokens: 330 } },
        ],
        { model: "m-1" },
      ),
      { tools: [lookup], stateStore: store },
    );
    const first = await agent.invoke(
      { messages: [HumanMessage({ content: "go" })] },
      { threadId: "f" },
    );
    const main = await agent.history("f");
    // Fork at event #2 (the commit of the first think), then go on on the branch.
    expect(main[1]!.type).toBe("step_committed");
    await agent.fork("f", { eventId: main[1]!.id, branchId: "try-again" });
    const second = await agent.invoke(null, { threadId: "f", branchId: "try-again" });
    const events = await agent.history("f", { branchId: "try-again" });
    const times = events.map((_, i) => 1_000 + 100 * i);
    const runs = runMetrics(agent.state, at(events, times), agent.name, prices, {
      branchId: "try-again",
    });
    expect(
      runs.map((r) => ({
        runId: r.runId,
        status: r.status,
        latencyMs: r.latencyMs,
        modelCalls: r.modelCalls,
        tokens: r.usage.totalTokens,
        run: r.spans[0],
      })),
    ).toEqual([
      {
        runId: first.runId,
        status: "forked",
        latencyMs: 100,
        modelCalls: 1,
        tokens: 110,
        run: {
          id: "run",
          parentId: null,
          kind: "run",
          name: agent.name,
          step: null,
          startMs: 0,
          endMs: 100,
          status: "forked",
          detail: "forked: cut at the fork point (main #2)",
        },
      },
      {
        runId: second.runId,
        status: "completed",
        latencyMs: events.length * 100 - 300,
        modelCalls: 1,
        tokens: 330, // the scripted model answers its third answer on the branch
        run: expect.objectContaining({ status: "ok", detail: "completed" }),
      },
    ]);
    // Without the branch given, the branch of the last event is the one read: the same.
    expect(runMetrics(agent.state, events, agent.name, null)[0]!.status).toBe("forked");
    // On main the same run is complete; a branch that forked off with no events of its own yet
    // still cuts it.
    expect(runMetrics(agent.state, main, agent.name, null)[0]!.status).toBe("completed");
    expect(
      runMetrics(agent.state, main.slice(0, 2), agent.name, null, { branchId: "empty-fork" })[0]!
        .status,
    ).toBe("forked");
    expect(runMetrics(agent.state, main.slice(0, 2), agent.name, null)[0]!.status).toBe("running");
  });
});
