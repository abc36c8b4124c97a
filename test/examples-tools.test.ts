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
