import { describe, expect, it } from "vitest";
import { runExample } from "./run-example.js";

describe("approval examples print what docs/interrupts-and-approval.md says", () => {
  it("examples/approval/refund-approval.ts", async () => {
    expect(await runExample("examples/approval/refund-approval.ts")).toBe(
      [
        "1:0#c1 Refund 20 EUR on A-1?",
        "1:0#c2 Refund 500 EUR on A-2?",
        "1:0#c3 Refund 900 EUR on A-3?",
        'c1 {"result":"refunded 20 EUR on A-1"} null',
        'c2 {"result":"refunded 50 EUR on A-2"} {"orderId":"A-2","amount":50}',
        "c3 Tool call denied by a person: over the 100 EUR limit null",
        "completed Refunded A-1 and 50 EUR on A-2; A-3 was refused.",
        "",
      ].join("\n"),
    );
  });

  it("examples/approval/stopped-turn.ts", async () => {
    expect(await runExample("examples/approval/stopped-turn.ts")).toBe(
      [
        'stopped: Tool "charge" failed on call "c1": Error: payment service down',
        "new input: PendingToolCallsError for calls c1 | unchanged: true",
        "continued: human ai tool ai | A-1 is charged.",
        "forked: human human ai | A-2 has not shipped yet.",
        "",
      ].join("\n"),
    );
  });
});
