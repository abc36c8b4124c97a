import { describe, expect, it } from "vitest";
import { runExample } from "./run-example.js";

describe("tool examples print what docs/tools.md says", () => {
  it("examples/tools/call-tool.ts", async () => {
    expect(await runExample("examples/tools/call-tool.ts")).toBe(
      [
        '{"type":"object","properties":{"sku":{"type":"string"}},"required":["sku"],"additionalProperties":false,"title":"CheckStockInput"}',
        '12 {"sku":"MUG-1"} {"result":12}',
        'Invalid arguments for tool "check_stock": sku: Invalid input: expected string, received number',
        "denied: Tool call limit reached: at most 2 tool calls per run",
        "",
      ].join("\n"),
    );
  });
});

describe("chat examples with parts", () => {
  it("examples/chat/picture-and-pdf.ts", async () => {
    expect(await runExample("examples/chat/picture-and-pdf.ts")).toBe(
      [
        "human (text+image+file): What is on the photo, and does it match the invoice?",
        'ai (text) [thought: The invoice is for lamps; compare with the March sales chart.] -> render_chart({"month":"March"}): ',
        "tool (text+image): Sales chart of March:",
        "ai (text) [thought: The chart came back as text + image.]: The shelf holds the 3 lamps of the invoice (120 EUR); March was their best month.",
        "model saw in its second call: human, ai, tool",
        'usage of the first call: {"inputTokens":1830,"outputTokens":64,"totalTokens":1894,"cachedInputTokens":1536}',
        "answer: The shelf holds the 3 lamps of the invoice (120 EUR); March was their best month.",
        "",
      ].join("\n"),
    );
  });
});
