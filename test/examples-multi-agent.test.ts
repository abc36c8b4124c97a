import { describe, expect, it, vi } from "vitest";
import { runExample } from "./run-example.js";

// A test here starts several processes one after another (the CLI, or an example and its
// workers), each 1–5 s of wall time on a loaded 2-core machine with two test workers: the
// budget is two minutes a test or hook, not vitest's 30 s (each process has its own 60 s timeout).
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const REPORT = [
  "Report: What shapes the tides?",
  "- moon: the moon's gravity raises two bulges of water",
  "- sun: the sun adds spring and neap tides",
  "- coastline: bays and shelves amplify the range",
];

// The examples of docs/subgraphs.md, docs/sub-agents.md and docs/workers.md, run as a user would.
describe("multi-agent examples", () => {
  it("examples/multi-agent/supervisor.ts: researchers spawned and gathered in one process", async () => {
    expect(await runExample("examples/multi-agent/supervisor.ts")).toBe(
      [...REPORT, "3 researcher threads", ""].join("\n"),
    );
  });

  it("examples/multi-agent/subgraph.ts: a child's interrupt pauses the parent and resumes the child", async () => {
    expect(await runExample("examples/multi-agent/subgraph.ts")).toBe(
      [
        'interrupted {"key":"0:0/approve","value":{"question":"Refund 250 EUR?"},"node":"review","taskId":"0:0"}',
        "completed approved",
        "r-1 r-1:review:<hex>",
        "",
      ].join("\n"),
    );
  });

  // Two worker processes on the machine's Redis and PostgreSQL (the example uses its own key
  // prefix and schema and removes them).
  it("examples/multi-agent/workers.ts --workers 2: the same researchers on two BullMQ workers", async () => {
    expect(await runExample("examples/multi-agent/workers.ts", ["--workers", "2"])).toBe(
      [...REPORT, "3 researcher threads", "3 jobs completed, 0 failed, on 2 workers", ""].join(
        "\n",
      ),
    );
  }, 60_000);
});
