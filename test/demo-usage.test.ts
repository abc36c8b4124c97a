/**
 * The demo's scripted model reports usage (estimated from the text, see
 * examples/demo/planner.ts) as model "scripted-planner", which examples/demo/prices.json
 * prices: so the studio's Metrics tab shows the demo's tokens and a cost.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildDemoAgent } from "../examples/demo/agent.js";
import { estimatedUsage } from "../examples/demo/planner.js";
import { AIMessage, HumanMessage } from "../src/chat/messages.js";
import { checkPrices } from "../src/middleware/prices.js";
import { usageFromEvents } from "../src/middleware/usage-totals.js";
import { runMetrics } from "../src/server/run-metrics.js";
import { MemoryStateStore } from "../src/stores/index.js";

const prices = checkPrices(
  JSON.parse(readFileSync(new URL("../examples/demo/prices.json", import.meta.url), "utf8")),
);

describe("the demo's scripted model", () => {
  it("estimates usage at four characters a token, 4 tokens of framing per message", () => {
    const request = {
      messages: [HumanMessage({ content: "12345678" }), AIMessage({ content: "abc" })],
      tools: [],
      toolChoice: "auto" as const,
      outputSchema: null,
    };
    // tools "[]" → 1; human 4 + 2; ai 4 + 1 + its tool calls "[]" → 1. Out: "Hello, world" → 3.
    expect(estimatedUsage(request, { content: "Hello, world" })).toEqual({
      inputTokens: 13,
      outputTokens: 3,
      totalTokens: 16,
    });
    // A tool call out: [{"name":"f","arguments":{"q":"x"}}] is 36 characters → 9.
    expect(
      estimatedUsage(request, { toolCalls: [{ id: "c", name: "f", arguments: { q: "x" } }] })
        .outputTokens,
    ).toBe(9);
  });

  it("reports usage as scripted-planner, priced by examples/demo/prices.json", async () => {
    const { graph, context } = buildDemoAgent({ stateStore: new MemoryStateStore() });
    await graph.invoke(
      { messages: [HumanMessage({ content: "Where is order A-1002?" })] },
      { threadId: "d", context },
    );
    const events = await graph.history("d");
    const { usage, byModel } = usageFromEvents(events);
    expect(Object.keys(byModel)).toEqual(["scripted-planner"]);
    // The question, the system prompt and 4 tools' definitions in; the tool call out. Then the
    // same with the call and its result in, the answer out.
    expect(usage).toEqual({
      inputTokens: 415 + 487,
      outputTokens: 17 + 25,
      totalTokens: 944,
      cachedInputTokens: 0,
      reasoningTokens: 0,
      calls: 2,
    });
    const [run] = runMetrics(graph.state, events, graph.name, prices);
    expect(run!.usage).toEqual(usage);
    // 902 × 0.15 / 1M + 42 × 0.6 / 1M
    expect(run!.cost).toEqual({
      usd: 0.0001605,
      byModel: { "scripted-planner": 0.0001605 },
      unpriced: [],
    });
    expect(
      run!.spans.filter((s) => s.kind === "model").map((s) => `${s.name}: ${s.detail}`),
    ).toEqual(["scripted-planner: 415 in · 17 out", "scripted-planner: 487 in · 25 out"]);
  });
});
