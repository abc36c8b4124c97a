import { describe, expect, it } from "vitest";
import type { StreamEvent } from "../graph/types.js";
import { RunView, showArguments, toolOutcome, usageLine } from "./run-view.js";

const ev = (
  mode: StreamEvent["mode"],
  node: string,
  taskId: string,
  data: unknown,
): StreamEvent => ({
  mode,
  node,
  step: 0,
  taskId,
  data,
});

describe("RunView: the readable view of a run", () => {
  it("streams text once, closes its line before tool lines, and says what runs", () => {
    const v = new RunView();
    expect(v.event(ev("tasks", "think", "0:0", { kind: "start" }))).toBe("");
    expect(v.running()).toBe("think");
    expect(v.event(ev("tokens", "think", "0:0", { contentDelta: "Let me " }))).toBe("ai: Let me ");
    expect(v.running()).toBeNull(); // text is streaming: no progress line
    expect(v.event(ev("tokens", "think", "0:0", { contentDelta: "look." }))).toBe("look.");
    const ai = {
      type: "ai",
      content: "Let me look.",
      toolCalls: [
        { id: "a", name: "lookup", arguments: { q: "x" } },
        { id: "b", name: "lookup", arguments: { q: "y", n: 2 } },
      ],
    };
    // The text already went out as tokens: the update only ends its line.
    expect(v.event(ev("updates", "think", "0:0", { messages: [ai] }))).toBe("\n");
    expect(v.event(ev("tasks", "think", "0:0", { kind: "result" }))).toBe("");
    expect(v.event(ev("tasks", "act", "1:0", { kind: "start" }))).toBe("");
    expect(v.running()).toBe("act: lookup, lookup");
    const tool = { type: "tool", name: "lookup", toolCallId: "a", content: '{"result":[1,2]}' };
    expect(v.event(ev("updates", "act", "1:0", { messages: [tool] }))).toBe(
      "tool lookup(q=x) → [1,2]\n",
    );
    expect(v.event(ev("custom", "act", "1:0", { done: 1 }))).toBe('• act: {"done":1}\n');
    // The run failed before the other call's result: it did not run.
    expect(v.end(false)).toBe("tool lookup(q=y, n=2) · not run\n");
    expect(v.running()).toBeNull();
  });

  it("prints an AI message's text that did not stream, and a refusal", () => {
    const v = new RunView();
    const ai = { type: "ai", content: "Hello.", refusal: "not that" };
    expect(v.event(ev("updates", "think", "0:0", { messages: [ai] }))).toBe(
      "ai: Hello.\nai refused: not that\n",
    );
  });

  it("shows a resumed call's arguments from the calls known before the run", () => {
    const v = new RunView([["c", { name: "refund", arguments: { amount: 5 } }]]);
    const tool = { type: "tool", name: "refund", toolCallId: "c", content: "Tool error: Boom: no" };
    expect(v.event(ev("updates", "act", "1:0", { messages: [tool] }))).toBe(
      "tool refund(amount=5) ✗ Boom: no\n",
    );
  });

  it("formats arguments, results and usage", () => {
    expect(showArguments({ a: "x", b: [1], c: null })).toBe("a=x, b=[1], c=null");
    expect(toolOutcome("plain text")).toBe("→ plain text");
    expect(toolOutcome('{"result":"ok"}')).toBe("→ ok");
    expect(toolOutcome("Tool call denied by a person")).toBe("✗ Tool call denied by a person");
    const totals = {
      inputTokens: 1_200_000,
      outputTokens: 3000,
      totalTokens: 1_203_000,
      cachedInputTokens: 0,
      reasoningTokens: 0,
      calls: 1,
    };
    expect(
      usageLine({
        usage: totals,
        byModel: { m: totals },
        cost: { usd: 3.0123, byModel: { m: 3.0123 }, unpriced: [] },
      }),
    ).toBe("usage: 1 model call · 1,203,000 tokens (1,200,000 in; 3,000 out) · $3.01");
    expect(usageLine({ usage: { ...totals, calls: 0 }, byModel: {}, cost: null })).toBeNull();
  });
});
