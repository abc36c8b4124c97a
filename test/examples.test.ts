import { describe, expect, it } from "vitest";
import { runExample } from "./run-example.js";

// Each example of docs/agents-and-tools.md, run as a user would, prints what the reference
// page prints, line for line (TypeScript names where they differ).
describe("agent examples print what docs/agents-and-tools.md says", () => {
  it("examples/agents/seed-order.ts", async () => {
    expect(await runExample("examples/agents/seed-order.ts")).toBe(
      ["Order A-1001 has shipped.", "2 model calls", '{"result":"shipped"}', ""].join("\n"),
    );
  });

  it("examples/agents/check-stock.ts", async () => {
    expect(await runExample("examples/agents/check-stock.ts")).toBe(
      [
        '{"type":"object","properties":{"sku":{"type":"string"}},"required":["sku"],"additionalProperties":false,"title":"CheckStockInput"}',
        "There are 12 mugs in stock.",
        '{"result":12}',
        "",
      ].join("\n"),
    );
  });

  it("examples/agents/structured-output.ts", async () => {
    expect(await runExample("examples/agents/structured-output.ts")).toBe(
      "{ title: 'Checkout is down', priority: 1 }\n",
    );
  });

  it("examples/agents/own-graph.ts", async () => {
    expect(await runExample("examples/agents/own-graph.ts")).toBe(
      [
        "Tool error: LookupError: no order B-7",
        "I could not find order B-7. Please check the number.",
        "",
      ].join("\n"),
    );
  });
});
