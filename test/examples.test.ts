import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { runExample } from "./run-example.js";

const EXAMPLES = ["seed-order", "check-stock", "structured-output", "own-graph"];

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

describe("docs/agents-and-tools.md", () => {
  it("shows exactly the four examples, each followed by what it prints", async () => {
    const doc = await readFile("docs/agents-and-tools.md", "utf8");
    const blocks = [...doc.matchAll(/```(ts|text)\n([\s\S]*?)```/g)].map((m) => ({
      lang: m[1],
      body: m[2]!,
    }));
    const code = blocks.filter((b) => b.lang === "ts").map((b) => b.body);
    const files = await Promise.all(
      EXAMPLES.map((name) => readFile(`examples/agents/${name}.ts`, "utf8")),
    );
    expect(code).toEqual(files);
    for (const [i, name] of EXAMPLES.entries()) {
      const at = blocks.findIndex((b) => b.lang === "ts" && b.body === files[i]);
      const output = blocks[at + 1]!;
      expect(output.lang).toBe("text");
      expect(output.body).toBe(await runExample(`examples/agents/${name}.ts`));
    }
  });
});
