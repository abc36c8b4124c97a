import { describe, expect, it } from "vitest";
import { expectError } from "../../test/helpers.js";
import { ConcurrentWriteError, StateStoreError } from "../errors/index.js";
import { END, Graph, node, START } from "../graph/index.js";
import { countedAppendOf } from "./counted-append.js";
import { MemoryStateStore } from "./index.js";
import type { NewEvent, StoredEvent } from "./types.js";

const events: NewEvent[] = [
  {
    type: "run_started",
    runId: "r1",
    step: 0,
    taskId: null,
    node: null,
    data: { input: { a: 1 } },
  },
  { type: "step_committed", runId: "r1", step: 0, taskId: null, node: null, data: { next: [] } },
];

/** A MemoryStateStore whose own append (overriding the built-in one) logs the event types. */
class Logged extends MemoryStateStore {
  readonly seen: string[] = [];
  override async append(
    threadId: string,
    branchId: string,
    evs: NewEvent[],
    expectedLastSeq: number,
  ): Promise<StoredEvent[]> {
    this.seen.push(...evs.map((e) => e.type));
    return super.append(threadId, branchId, evs, expectedLastSeq);
  }
}

describe("countedAppendOf (the journal's append on a MemoryStateStore)", () => {
  it("stores what append stores and answers how many events it stored", async () => {
    const a = new MemoryStateStore({ now: () => 7 });
    const b = new MemoryStateStore({ now: () => 7 });
    await a.append("t", "main", events, 0);
    const append = countedAppendOf(b)!;
    expect(append("t", "main", events, 0)).toBe(2);
    expect(append("t", "main", [], 2)).toBe(0);
    expect(await b.read("t", "main")).toEqual(await a.read("t", "main"));
    expect(await b.sizeBytes()).toBe(await a.sizeBytes());
    expect((await b.read("t", "main")).map((e) => [e.id, e.seq, e.createdAt])).toEqual([
      ["t/main/1", 1, 7],
      ["t/main/2", 2, 7],
    ]);
  });

  it("fails as append does, writing nothing", async () => {
    const store = new MemoryStateStore();
    const append = countedAppendOf(store)!;
    append("t", "main", events.slice(0, 1), 0);
    await expectError(
      () => append("t", "main", events, 0),
      ConcurrentWriteError,
      'Branch "main" of thread "t" is at seq 1, not 0: another writer appended since this one read it. Nothing was written; reload the branch and retry.',
    );
    const bad = [{ ...events[1]!, data: { f: () => 1 } }] as unknown as NewEvent[];
    await expectError(
      () => append("t", "main", bad, 1),
      StateStoreError,
      'Cannot append to thread "t" branch "main": events[0].data.f: a function is not JSON. Only JSON data can be stored.',
    );
    expect((await store.read("t", "main")).map((x) => x.type)).toEqual(["run_started"]);
    await store.close();
    await expectError(
      () => append("t", "main", events, 1),
      StateStoreError,
      "The MemoryStateStore is closed; open a new one.",
    );
  });

  it("is null for a store that is not a MemoryStateStore or overrides append", () => {
    class Plain extends MemoryStateStore {}
    expect(countedAppendOf(new Logged())).toBeNull();
    expect(countedAppendOf({ append: MemoryStateStore.prototype.append })).toBeNull();
    expect(typeof countedAppendOf(new Plain())).toBe("function");
    // A wrapper that binds every method to the store it wraps but gives its own append (as
    // test/durable/parent-command.test.ts's dying store does), and a replaced instance append.
    const inner = new MemoryStateStore();
    const own = async () => [];
    const wrapped = new Proxy(inner, {
      get(target, prop) {
        if (prop === "append") return own;
        const v = Reflect.get(target, prop, target);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
    expect(countedAppendOf(wrapped)).toBeNull();
    const patched = new MemoryStateStore();
    patched.append = own;
    expect(countedAppendOf(patched)).toBeNull();
  });

  it("leaves a subclass's own append to be called by a run", async () => {
    const logged = new Logged();
    const a = node(() => ({}), { name: "a" });
    const graph = new Graph(null, { name: "g", stateStore: logged }).flow(START.to(a), a.to(END));
    await graph.invoke({}, { threadId: "t" });
    expect(logged.seen).toEqual(["run_started", "step_committed", "run_finished"]);
  });
});
