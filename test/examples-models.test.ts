import { describe, expect, it } from "vitest";
import { runExample } from "./run-example.js";

describe("model examples print what docs/fallback-and-retries.md says", () => {
  it("examples/models/fallback.ts", async () => {
    expect(await runExample("examples/models/fallback.ts")).toBe(
      [
        "Order A-1001 has shipped.",
        '{"inputTokens":12,"outputTokens":6,"totalTokens":18,"cachedInputTokens":0,"reasoningTokens":0,"raw":{"inputTokens":{"total":12,"noCache":12,"cacheRead":0,"cacheWrite":0},"outputTokens":{"total":6,"text":6,"reasoning":0}}}',
        '{"fallback":{"model":"gemini-2.5-flash","skipped":[{"model":"gpt-4o-mini","reason":"rate_limit","status":429,"message":"Rate limit reached"}]},"model":"gemini-2.5-flash"}',
        "",
      ].join("\n"),
    );
  });

  it("examples/models/retries.ts", async () => {
    expect(await runExample("examples/models/retries.ts")).toBe(
      [
        '{"kind":"model_retry","model":"gpt-4o-mini","attempt":1,"delayMs":10,"status":503,"message":"Service unavailable"}',
        '{"kind":"model_retry","model":"gpt-4o-mini","attempt":2,"delayMs":20,"status":429,"message":"Rate limit reached"}',
        '{"kind":"tool_retry","tool":"lookup_order","toolCallId":"c1","attempt":1,"delayMs":5,"error":{"name":"ServiceDown","message":"orders service did not answer"}}',
        '{"kind":"tool_retry","tool":"lookup_order","toolCallId":"c1","attempt":2,"delayMs":10,"error":{"name":"ServiceDown","message":"orders service did not answer"}}',
        "Order A-1001 has shipped.",
        "model calls: 4, tool attempts: 3",
        "",
      ].join("\n"),
    );
  });

  it("examples/models/usage.ts (docs/usage-and-cost.md)", async () => {
    expect(await runExample("examples/models/usage.ts")).toBe(
      [
        "run 1: 1250000 tokens, $0.15",
        "run 2: $0.345; thread: $0.495",
        "interrupted: $0.495 of $0.4",
        "Going on.",
        "main: 3 calls, 3260000 tokens",
        "fork: 1 call, 1250000 tokens",
        "",
      ].join("\n"),
    );
  });
});
