import { afterEach, describe, expect, it } from "vitest";
import type { StoredEvent } from "../stores/types.js";
import { checkPrices, costOf, priceOf } from "./prices.js";
import { usageFromEvents } from "./usage-totals.js";

/** A commit whose update holds one AI message from `model` (5 tokens in, 7 out). */
const commit = (seq: number, model: string): StoredEvent =>
  ({
    id: `t/main/${seq}`,
    threadId: "t",
    branchId: "main",
    seq,
    createdAt: 0,
    type: "step_committed",
    runId: "r",
    step: seq,
    taskId: null,
    node: null,
    data: {
      update: {
        messages: [
          {
            type: "ai",
            id: `m-${seq}`,
            content: "x",
            usage: { inputTokens: 5, outputTokens: 7 },
            responseMetadata: { model },
          },
        ],
      },
    },
  }) as unknown as StoredEvent;

const totals = {
  inputTokens: 5,
  outputTokens: 7,
  totalTokens: 12,
  cachedInputTokens: 0,
  reasoningTokens: 0,
  calls: 1,
};
const POLLUTED = ["inputTokens", "outputTokens", "totalTokens", "calls"];

describe("usage by model: a model named like Object.prototype's members", () => {
  afterEach(() => {
    // Undo what a failing run of this test would have left for the other tests of the process.
    for (const k of POLLUTED) delete (Object.prototype as Record<string, unknown>)[k];
  });

  it("counts __proto__, constructor and toString as models of their own, and leaves Object.prototype alone", () => {
    const s = usageFromEvents([
      commit(1, "__proto__"),
      commit(2, "constructor"),
      commit(3, "toString"),
    ]);
    expect(POLLUTED.map((k) => Object.hasOwn(Object.prototype, k))).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(Object.getPrototypeOf(s.byModel)).toBe(Object.prototype);
    expect(Object.keys(s.byModel)).toEqual(["__proto__", "constructor", "toString"]);
    expect(JSON.parse(JSON.stringify(s.byModel))).toEqual(
      JSON.parse(
        '{"__proto__":' +
          JSON.stringify(totals) +
          ',"constructor":' +
          JSON.stringify(totals) +
          ',"toString":' +
          JSON.stringify(totals) +
          "}",
      ),
    );
    expect(s.usage).toEqual({
      ...totals,
      inputTokens: 15,
      outputTokens: 21,
      totalTokens: 36,
      calls: 3,
    });
  });

  it("prices only the table's own names: constructor is unpriced, not NaN", () => {
    const prices = checkPrices({
      gpt: { inputPerMillion: 1_000_000, outputPerMillion: 2_000_000 },
    });
    expect(priceOf(prices, "constructor")).toBe(null);
    expect(priceOf(prices, "toString")).toBe(null);
    const byModel = usageFromEvents([
      commit(1, "constructor"),
      commit(2, "gpt-4"),
      commit(3, "__proto__"),
    ]).byModel;
    expect(costOf(byModel, prices)).toEqual({
      usd: 19,
      byModel: { "gpt-4": 19 },
      unpriced: ["__proto__", "constructor"],
    });
  });
});
