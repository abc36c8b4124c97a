/** Issue 13, item 9: deleting a thread from the memory store frees its memory. */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { expect, it } from "vitest";
import { MemoryStateStore } from "./index.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

function heapMb(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1e6;
}

it("frees a deleted thread's events and snapshots (heap measured)", async () => {
  const store = new MemoryStateStore();
  await store.append("keep", "main", [ev("kept")], 0);
  const before = heapMb();
  // About 40 MB of event data (as JSON text: one byte a character here) and a 4 MB snapshot.
  for (let i = 0; i < 400; i++) {
    await store.append("big", "main", [ev(`${i}`.padEnd(100_000, "x"))], i);
  }
  await store.saveSnapshot("big", "main", { seq: 400, data: "s".repeat(4_000_000) });
  const full = heapMb();
  expect(full - before).toBeGreaterThan(40);
  expect(await store.deleteThread("big")).toEqual(["big"]);
  const after = heapMb();
  // What the thread held is gone (within a few MB of what the heap held before).
  expect(full - after).toBeGreaterThan(40);
  expect(after - before).toBeLessThan(5);
  // Its bytes are no longer counted: the store holds exactly what the other thread takes.
  expect(await store.sizeBytes()).toBe(await sizeOfOne());
  expect((await store.read("keep", "main")).map((e) => e.data)).toEqual(["kept"]);
});

async function sizeOfOne(): Promise<number> {
  const s = new MemoryStateStore();
  await s.append("keep", "main", [ev("kept")], 0);
  return s.sizeBytes();
}

function ev(data: string) {
  return { type: "tool_result" as const, runId: "r1", step: 0, taskId: "k", node: "n", data };
}
