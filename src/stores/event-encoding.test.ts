import { describe, expect, it } from "vitest";
import { encodeEvents, utf8Bytes } from "./event-encoding.js";

describe("utf8Bytes", () => {
  it("counts as Buffer.byteLength does, short ASCII and otherwise", () => {
    const cases = [
      "",
      "a",
      "step_committed",
      "a".repeat(64),
      "a".repeat(65),
      "é",
      "héllo",
      "€",
      "😀",
      "\ud800",
      `${"a".repeat(63)}é`,
      `${"a".repeat(64)}é`,
      "\u007f",
      "\u0080",
    ];
    expect(cases.map(utf8Bytes)).toEqual([0, 1, 14, 64, 65, 2, 6, 3, 4, 3, 65, 66, 1, 2]);
    for (const s of cases) expect(utf8Bytes(s)).toBe(Buffer.byteLength(s, "utf8"));
  });

  it("gives an event row's bytes: its text columns' UTF-8 bytes and 24 for its numbers", () => {
    const [e] = encodeEvents("t", "main", [
      {
        type: "tool_result",
        runId: "rün",
        step: 1,
        taskId: "task-1",
        node: "nœud",
        data: { a: "é" },
      },
    ]);
    // tool_result 11 + rün 4 + task-1 6 + nœud 5 + {"a":"é"} 10 + 3 × 8
    expect(e!.bytes).toBe(11 + 4 + 6 + 5 + 10 + 24);
    expect(e!.data).toBe('{"a":"é"}');
  });
});
