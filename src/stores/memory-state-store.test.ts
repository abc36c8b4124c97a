import { describe, expect, it } from "vitest";
import { expectError } from "../../test/helpers.js";
import { StateStoreError } from "../errors/index.js";
import { MemoryStateStore } from "./index.js";
import { memoryStoreView } from "./memory-state-store.js";
import { describeStateStoreContract } from "./testing/contract.js";
import type { NewEvent } from "./types.js";

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

  it("a view made by memoryStoreView is a new instance over the same data; closing it keeps the data", async () => {
    let now = 5_000;
    const store = new MemoryStateStore({ now: () => now });
    const view = memoryStoreView(store)!;
    expect(view).toBeInstanceOf(MemoryStateStore);
    expect(view).not.toBe(store);
    const ev: NewEvent = {
      type: "run_started",
      runId: "r",
      step: null,
      taskId: null,
      node: null,
      data: 1,
    };
    await store.append("t", "main", [ev], 0);
    await view.append("t", "main", [{ ...ev, data: 2 }], 1);
    expect((await store.read("t", "main")).map((e) => [e.seq, e.data, e.createdAt])).toEqual([
      [1, 1, 5_000],
      [2, 2, 5_000],
    ]);
    // One set of leases, and the store's clock.
    expect(await view.acquireLease("t", "main", "a", 50)).toBe(true);
    expect(await store.acquireLease("t", "main", "b", 50)).toBe(false);
    now = 5_050;
    expect(await store.acquireLease("t", "main", "b", 50)).toBe(true);
    await view.saveSnapshot("t", "main", { seq: 2, data: "s" });
    expect(await store.loadSnapshot("t", "main")).toEqual({ seq: 2, data: "s" });
    expect(await view.sizeBytes()).toBe(await store.sizeBytes());
    await view.close();
    await expectError(
      () => view.read("t", "main"),
      StateStoreError,
      "The MemoryStateStore is closed; open a new one.",
    );
    expect(await store.read("t", "main")).toHaveLength(2);
    expect(memoryStoreView({})).toBeNull();
  });
});
