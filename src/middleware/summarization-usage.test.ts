import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent } from "../agents/react-agent.js";
import { HumanMessage } from "../chat/messages.js";
import { ScriptedChat } from "../chat/scripted-chat.js";
import { runMetrics } from "../server/run-metrics.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import type { StateStore } from "../stores/types.js";
import { tool } from "../tools/tool.js";
import { checkPrices } from "./prices.js";
import { SummarizationMiddleware } from "./summarization.js";
import { UsageLedger, usageFromEvents } from "./usage-totals.js";

const lookup = tool(({ orderId }) => `${orderId} shipped`, {
  name: "lookup",
  description: "Look an order up.",
  input: z.object({ orderId: z.string() }),
});

const usage = { inputTokens: 10, outputTokens: 2 };
const callA = { toolCalls: [{ id: "c1", name: "lookup", arguments: { orderId: "A-1" } }], usage };

/** A new agent per call (cold) over `store`: summarizing past 20 tokens, keeping 6. */
function agentOver(store: StateStore, chat: ScriptedChat, summarizer: ScriptedChat) {
  return buildReactAgent(chat, {
    tools: [lookup],
    stateStore: store,
    middleware: [
      SummarizationMiddleware({ model: summarizer, trigger: { tokens: 20 }, keep: { tokens: 6 } }),
    ],
  });
}

const ask = (content: string) => ({ messages: [HumanMessage({ content })] });

describe("SummarizationMiddleware's own model call in the usage totals and run metrics", () => {
  it("counts the summary call under the summary model, stored with the step's answer", async () => {
    const store = new MemoryStateStore();
    const chat = new ScriptedChat(
      [callA, { content: "A-1 has shipped.", usage }, { content: "Yes.", usage }],
      {
        model: "big",
      },
    );
    const summarizer = new ScriptedChat(
      [
        {
          content: "A-1 shipped.",
          usage: { inputTokens: 40, outputTokens: 8, cachedInputTokens: 4 },
        },
      ],
      { model: "small" },
    );
    await agentOver(store, chat, summarizer).invoke(ask("Where is order A-1?"), { threadId: "t" });
    const r2 = await agentOver(store, chat, summarizer).invoke(ask("Sure?"), { threadId: "t" });
    expect(summarizer.requests.length).toBe(1);
    const last = r2.state.messages.at(-1)!;
    expect(last.type === "ai" && last.responseMetadata).toEqual({
      model: "big",
      middlewareCalls: [
        {
          middleware: "SummarizationMiddleware",
          model: "small",
          usage: { inputTokens: 40, outputTokens: 8, cachedInputTokens: 4 },
        },
      ],
    });

    const ledger = new UsageLedger(store);
    const thread = await ledger.thread("t");
    expect(thread.usage).toEqual({
      inputTokens: 70,
      outputTokens: 14,
      totalTokens: 84,
      cachedInputTokens: 4,
      reasoningTokens: 0,
      calls: 4,
    });
    expect(thread.byModel).toEqual({
      big: {
        inputTokens: 30,
        outputTokens: 6,
        totalTokens: 36,
        cachedInputTokens: 0,
        reasoningTokens: 0,
        calls: 3,
      },
      small: {
        inputTokens: 40,
        outputTokens: 8,
        totalTokens: 48,
        cachedInputTokens: 4,
        reasoningTokens: 0,
        calls: 1,
      },
    });
    // The run that summarized, cold: a new ledger over the same store.
    const run2 = await new UsageLedger(store).run("t", r2.runId);
    expect(run2.byModel.small).toEqual(thread.byModel.small);
    const events = await store.read("t", "main");
    expect(usageFromEvents(events, { runId: r2.runId }).byModel.small).toEqual(
      thread.byModel.small,
    );

    const prices = checkPrices({
      big: { inputPerMillion: 1_000_000, outputPerMillion: 2_000_000 },
      small: { inputPerMillion: 100_000, outputPerMillion: 200_000 },
    });
    const metrics = runMetrics(null, events, "agent", prices);
    expect(metrics.map((m) => m.runId)).toEqual([metrics[0]!.runId, r2.runId]);
    const m2 = metrics[1]!;
    expect(m2.byModel.small).toEqual(thread.byModel.small);
    expect(m2.cost?.byModel.small).toBe(5.6); // 40 × $0.1 + 8 × $0.2
    const model = m2.spans.filter((s) => s.kind === "model");
    expect(model.map((s) => ({ id: s.id, name: s.name, detail: s.detail })).at(-1)).toEqual({
      id: `model:${String(last.id)}:SummarizationMiddleware:0`,
      name: "small",
      detail: "SummarizationMiddleware: 40 in · 8 out",
    });
    expect(m2.modelCalls).toBe(model.length);
  });

  it("an answer kept by the summary and written again is counted once: per run and per thread, cold and warm", async () => {
    const store = new MemoryStateStore();
    const chat = new ScriptedChat(
      [callA, { content: "A-1 has shipped.", usage }, { content: "Yes.", usage }],
      { model: "big" },
    );
    const summarizer = new ScriptedChat(
      [{ content: "A-1 shipped.", usage: { inputTokens: 40, outputTokens: 8 } }],
      { model: "small" },
    );
    const warm = new UsageLedger(store);
    const r1 = await agentOver(store, chat, summarizer).invoke(ask("Where is order A-1?"), {
      threadId: "t",
    });
    expect((await warm.run("t", r1.runId)).usage.calls).toBe(2); // folded before run 2
    const r2 = await agentOver(store, chat, summarizer).invoke(ask("Sure?"), { threadId: "t" });
    const events = await store.read("t", "main");
    // Run 2's update writes run 1's last answer again, after the summary's removals.
    const kept = r1.state.messages.at(-1)!;
    const rewrites = events.filter(
      (e) =>
        e.runId === r2.runId && JSON.stringify(e.data).includes(`"id":${JSON.stringify(kept.id)}`),
    );
    expect(rewrites.length).toBeGreaterThan(0);
    const totals = (input: number, output: number, calls: number) => ({
      inputTokens: input,
      outputTokens: output,
      totalTokens: input + output,
      cachedInputTokens: 0,
      reasoningTokens: 0,
      calls,
    });
    const run1 = { big: totals(20, 4, 2) };
    const run2 = { big: totals(10, 2, 1), small: totals(40, 8, 1) };
    for (const ledger of [warm, new UsageLedger(store)]) {
      expect((await ledger.run("t", r1.runId)).byModel).toEqual(run1);
      expect((await ledger.run("t", r2.runId)).byModel).toEqual(run2);
      expect((await ledger.run("t", r2.runId)).usage).toEqual(totals(50, 10, 2));
      expect((await ledger.thread("t")).usage).toEqual(totals(70, 14, 4));
    }
    expect(usageFromEvents(events, { runId: r1.runId }).byModel).toEqual(run1);
    expect(usageFromEvents(events, { runId: r2.runId }).byModel).toEqual(run2);
    const afterRun1 = events.findLast((e) => e.runId === r1.runId)!.seq;
    expect(usageFromEvents(events, { afterSeq: afterRun1 }).byModel).toEqual(run2);
    expect(usageFromEvents(events).usage).toEqual(totals(70, 14, 4));

    const metrics = runMetrics(null, events, "agent", null);
    expect(metrics.map((m) => [m.runId, m.byModel, m.modelCalls, m.toolCalls])).toEqual([
      [r1.runId, run1, 2, 1],
      [r2.runId, run2, 2, 0],
    ]);
    expect(metrics[1]!.nodes.map((n) => [n.node, n.modelCalls, n.toolCalls, n.usage])).toEqual([
      ["think", 2, 0, totals(50, 10, 2)],
    ]);
    const ids = metrics[1]!.spans.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("a step whose agent model fails stores nothing: its summary call is not counted", async () => {
    const store = new MemoryStateStore();
    const chat = new ScriptedChat(
      [
        callA,
        { content: "A-1 has shipped.", usage },
        new Error("model down"),
        { content: "Yes.", usage },
      ],
      { model: "big" },
    );
    const summarizer = new ScriptedChat(
      [
        { content: "A-1 shipped.", usage: { inputTokens: 40, outputTokens: 8 } },
        { content: "A-1 shipped!", usage: { inputTokens: 41, outputTokens: 9 } },
      ],
      { model: "small" },
    );
    await agentOver(store, chat, summarizer).invoke(ask("Where is order A-1?"), { threadId: "t" });
    await expect(
      agentOver(store, chat, summarizer).invoke(ask("Sure?"), { threadId: "t" }),
    ).rejects.toThrow("model down");
    expect((await new UsageLedger(store).thread("t")).byModel.small).toBeUndefined();
    // The retry summarizes again; only that summary call is counted.
    await agentOver(store, chat, summarizer).invoke(null, { threadId: "t" });
    expect((await new UsageLedger(store).thread("t")).byModel.small).toEqual({
      inputTokens: 41,
      outputTokens: 9,
      totalTokens: 50,
      cachedInputTokens: 0,
      reasoningTokens: 0,
      calls: 1,
    });
  });
});
