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
});
