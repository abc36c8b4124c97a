/**
 * Issue 13: a `deleteThread` that meets another deletion of the same thread in progress (on
 * the same store object) says so; before, it said the thread "is running". A run's lease
 * still reads "is running". On every store.
 */
import { afterAll, describe, expect, it } from "vitest";
import { ThreadBusyError } from "../errors/index.js";
import { isolation, PG_URL } from "../integrations/bullmq/sse.fixture.js";
import { PostgresStateStore } from "../integrations/postgres/index.js";
import { SqliteStateStore } from "../integrations/sqlite/index.js";
import { underLeases } from "./internal.js";
import { MemoryStateStore } from "./memory-state-store.js";
import type { NewEvent, StateStore } from "./types.js";

const iso = isolation("deleterace");
const pg = new PostgresStateStore({ connectionString: PG_URL, schema: iso.schema });
const sqlite = new SqliteStateStore({ path: ":memory:" });
afterAll(async () => {
  await pg.close();
  sqlite.close();
  await iso.cleanup();
});

const stores: [string, StateStore][] = [
  ["memory", new MemoryStateStore()],
  ["sqlite", sqlite],
  ["postgres", pg],
];

const started: NewEvent = {
  type: "run_started",
  runId: "r1",
  step: null,
  taskId: null,
  node: null,
  data: 1,
};

async function busy(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ThreadBusyError);
  return (e as Error).message;
}

describe.each(stores)("deleteThread racing a deletion on the %s store", (_name, store) => {
  it("the loser's ThreadBusyError says a delete is in progress; it deletes nothing", async () => {
    await store.append("t1", "main", [started], 0);
    await store.createBranch("t1", "t1/main/1", "b");
    // The first deletion (deleteThread's own lease-taking) holds the leases when the second asks.
    const loser = await underLeases(
      store,
      [
        ["t1", "main"],
        ["t1", "b"],
      ],
      () => busy(store.deleteThread("t1")),
    );
    expect(loser).toBe(
      'Thread "t1" (branch "main") is being deleted by another deleteThread call; this one deleted nothing',
    );
    expect((await store.listBranches("t1")).map((b) => b.branchId)).toEqual(["main", "b"]);
    // Once it is over, a run's lease reads as a run again.
    expect(await store.acquireLease("t1", "main", "run-a", 60_000)).toBe(true);
    expect(await busy(store.deleteThread("t1"))).toBe(
      'Thread "t1" (branch "main") is running; it cannot be deleted until the run ends (or its lease expires)',
    );
    await store.releaseLease("t1", "main", "run-a");
    expect(await store.deleteThread("t1")).toEqual(["t1"]);
    expect(await store.listBranches("t1")).toEqual([]);
  });

  it("of two deleteThread calls at once, one deletes the thread; the other deletes nothing or says a delete is in progress", async () => {
    await store.append("t2", "main", [started], 0);
    const results = await Promise.allSettled([store.deleteThread("t2"), store.deleteThread("t2")]);
    const shown = results
      .map((r) => (r.status === "fulfilled" ? JSON.stringify(r.value) : String(r.reason)))
      .sort();
    const deleted = shown.filter((s) => s === '["t2"]');
    expect(deleted).toHaveLength(1);
    const other = shown.find((s) => s !== '["t2"]');
    expect([
      "[]",
      'ThreadBusyError: Thread "t2" (branch "main") is being deleted by another deleteThread call; this one deleted nothing',
    ]).toContain(other);
    expect(await store.listBranches("t2")).toEqual([]);
  });
});
