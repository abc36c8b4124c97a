import { describe, expect, it } from "vitest";
import { MemoryStateStore } from "./index.js";
import { describeStateStoreContract } from "./testing/contract.js";

describeStateStoreContract("MemoryStateStore", async () => new MemoryStateStore());

describe("MemoryStateStore", () => {
  it("uses the given clock for event times and lease expiry", async () => {
    let now = 1_000;
    const store = new MemoryStateStore({ now: () => now });
    const [e] = await store.append(
      "t",
      "main",
      [{ type: "run_started", runId: "r", step: null, taskId: null, node: null, data: null }],
      0,
    );
    expect(e!.createdAt).toBe(1_000);
    expect(await store.acquireLease("t", "main", "a", 50)).toBe(true);
    now = 1_049;
    expect(await store.acquireLease("t", "main", "b", 50)).toBe(false);
    now = 1_050;
    expect(await store.acquireLease("t", "main", "b", 50)).toBe(true);
    expect(await store.listThreads()).toEqual([
      { threadId: "t", branches: ["main"], updatedAt: 1_000 },
    ]);
  });

  it("counts the UTF-8 bytes of data and text fields plus 8 per number", async () => {
    const store = new MemoryStateStore();
    await store.append(
      "t",
      "main",
      [{ type: "tool_result", runId: "r1", step: 2, taskId: "k", node: "n", data: { s: "é" } }],
      0,
    );
    // data '{"s":"é"}' = 10 bytes; "tool_result" 11, "r1" 2, "k" 1, "n" 1; "t" 1, "main" 4; 3 numbers 24.
    expect(await store.sizeBytes()).toBe(10 + 11 + 2 + 1 + 1 + 1 + 4 + 24);
    await store.saveSnapshot("t", "main", { seq: 1, data: [1, 2] });
    // "[1,2]" 5 bytes + "t" 1 + "main" 4 + seq 8.
    expect(await store.sizeBytes()).toBe(54 + 18);
  });
});
