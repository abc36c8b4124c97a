import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it, vi } from "vitest";
import { ConcurrentWriteError, StateStoreError, UnknownBranchError } from "../../errors/index.js";
import { encodeEvents } from "../../stores/internal.js";
import type { NewEvent, StoredEvent } from "../../stores/types.js";
import { SqliteStateStore } from "./index.js";
import { appendOperation, BranchHeads } from "./sqlite-state-append.js";
import { prepare } from "./sqlite-state-sql.js";
import { BATCH_MAX_BYTES, BATCH_MAX_WRITES, SqliteWriteBatch } from "./sqlite-write-batch.js";
import { ev, expectAckedKept, seqData, startWriters } from "./write-batch.fixture.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-sqlite-batch-"));
let n = 0;
const fresh = () => join(dir, `store-${++n}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Events of a thread's "main" as another connection sees the file: [seq, data JSON]. */
function fileRows(path: string, threadId: string): [number, string][] {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .prepare(
        "SELECT seq, data FROM events WHERE thread_id = ? AND branch_id = 'main' ORDER BY seq",
      )
      .raw()
      .all(threadId) as [number, string][];
  } finally {
    db.close();
  }
}

/** The number of writes of each batch committed from now on (by any store), until restored. */
function countBatches(): { sizes: number[]; restore: () => void } {
  const sizes: number[] = [];
  const flush = SqliteWriteBatch.prototype.flush;
  const spy = vi.spyOn(SqliteWriteBatch.prototype, "flush").mockImplementation(function (
    this: SqliteWriteBatch,
  ) {
    const size = this.size;
    if (size > 0) sizes.push(size);
    flush.call(this);
  });
  return { sizes, restore: () => spy.mockRestore() };
}

const stale = (threadId: string, actual: number, expected: number) =>
  `Branch "main" of thread "${threadId}" is at seq ${actual}, not ${expected}: another writer appended since this one read it. Nothing was written; reload the branch and retry.`;

describe("SqliteStateStore group commit", () => {
  it("commits the writes of a batch but one that fails, which rejects alone and writes nothing", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    await store.append("t1", "main", [ev({ n: 1 })], 0);
    const batches = countBatches();
    const results = await Promise.allSettled([
      store.append("t1", "main", [ev({ n: 2 })], 1),
      store.append("t1", "main", [ev({ stale: true })], 0),
      store.append("t2", "main", [ev({ m: 1 }), ev({ m: 2 })], 0),
      store.append("t3", "side", [ev({ x: 1 })], 0),
      store.acquireLease("t1", "main", "run-a", 60_000),
      store.acquireLease("t1", "main", "run-b", 60_000),
    ]);
    expect(batches.sizes).toEqual([6]);
    batches.restore();
    expect(results.map((r) => r.status)).toEqual([
      "fulfilled",
      "rejected",
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
    ]);
    expect(seqData((results[0] as PromiseFulfilledResult<StoredEvent[]>).value)).toEqual([
      [2, { n: 2 }],
    ]);
    const refused = (results[1] as PromiseRejectedResult).reason;
    expect(refused).toBeInstanceOf(ConcurrentWriteError);
    expect(refused.message).toBe(stale("t1", 2, 0));
    expect(seqData((results[2] as PromiseFulfilledResult<StoredEvent[]>).value)).toEqual([
      [1, { m: 1 }],
      [2, { m: 2 }],
    ]);
    const unknown = (results[3] as PromiseRejectedResult).reason;
    expect(unknown).toBeInstanceOf(UnknownBranchError);
    expect(unknown.message).toBe(
      'Thread "t3" has no branch "side". Branches other than "main" are made with createBranch.',
    );
    expect(
      [results[4], results[5]].map((r) => (r as PromiseFulfilledResult<boolean>).value),
    ).toEqual([true, false]);
    await store.close();
    // Read back cold, by a new store on the file.
    const cold = new SqliteStateStore({ path });
    expect(seqData(await cold.read("t1", "main"))).toEqual([
      [1, { n: 1 }],
      [2, { n: 2 }],
    ]);
    expect(seqData(await cold.read("t2", "main"))).toEqual([
      [1, { m: 1 }],
      [2, { m: 2 }],
    ]);
    expect(await cold.listBranches("t3")).toEqual([]);
    expect(await cold.acquireLease("t1", "main", "run-b", 60_000)).toBe(false);
    await cold.close();
  });

  it("lets a write see the writes before it in its batch: two appends to one branch", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    const [first, second, late] = await Promise.allSettled([
      store.append("t", "main", [ev({ n: 1 })], 0),
      store.append("t", "main", [ev({ n: 2 }), ev({ n: 3 })], 1),
      store.append("t", "main", [ev({ n: 99 })], 1),
    ]);
    expect(seqData((first as PromiseFulfilledResult<StoredEvent[]>).value)).toEqual([
      [1, { n: 1 }],
    ]);
    expect(seqData((second as PromiseFulfilledResult<StoredEvent[]>).value)).toEqual([
      [2, { n: 2 }],
      [3, { n: 3 }],
    ]);
    expect((late as PromiseRejectedResult).reason.message).toBe(stale("t", 3, 1));
    // The heads the batch left are the cache's now: the next append goes on from seq 3.
    expect(seqData(await store.append("t", "main", [ev({ n: 4 })], 3))).toEqual([[4, { n: 4 }]]);
    expect(fileRows(path, "t")).toEqual([
      [1, '{"n":1}'],
      [2, '{"n":2}'],
      [3, '{"n":3}'],
      [4, '{"n":4}'],
    ]);
    await store.close();
  });

  it("rejects every write of a batch whose transaction cannot begin (the write lock held elsewhere)", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path, busyTimeoutMs: 20 });
    await store.append("t1", "main", [ev({ n: 1 })], 0);
    const other = new Database(path);
    other.exec("BEGIN IMMEDIATE");
    const results = await Promise.allSettled([
      store.append("t1", "main", [ev({ n: 2 })], 1),
      store.append("t2", "main", [ev({ m: 1 })], 0),
    ]);
    other.exec("ROLLBACK");
    other.close();
    const reasons = results.map((r) => (r as PromiseRejectedResult).reason);
    for (const [i, threadId] of ["t1", "t2"].entries()) {
      expect(reasons[i]).toBeInstanceOf(StateStoreError);
      expect(reasons[i].message).toBe(
        `SQLite state store ${path} failed on thread "${threadId}": database is locked. Another connection (another process, or another store object in this one) held the write lock too long, or a store opened with exclusive: true holds the file; retry or raise busyTimeoutMs.`,
      );
    }
    // Nothing was written, and the store goes on from what the file holds.
    expect(seqData(await store.append("t1", "main", [ev({ n: 2 })], 1))).toEqual([[2, { n: 2 }]]);
    expect(seqData(await store.append("t2", "main", [ev({ m: 1 })], 0))).toEqual([[1, { m: 1 }]]);
    await store.close();
  });

  it("rejects every write of a batch whose COMMIT fails, or that SQLite rolled back, and keeps none of its heads", async () => {
    const path = fresh();
    await new SqliteStateStore({ path }).close();
    const db = new Database(path);
    const s = prepare(db);
    const heads = new BranchHeads();
    const append = appendOperation(s, heads);
    let failCommit = false;
    // The connection as the batch sees it, with a COMMIT that fails when asked to.
    const view = new Proxy(db, {
      get(target, key) {
        if (key !== "prepare") return Reflect.get(target, key);
        return (sql: string) => {
          const stmt = target.prepare(sql);
          if (sql !== "COMMIT") return stmt;
          return {
            run: () => {
              if (failCommit)
                throw Object.assign(new Error("disk I/O error"), { code: "SQLITE_IOERR" });
              return stmt.run();
            },
          };
        };
      },
    });
    const batch = new SqliteWriteBatch(view, heads, "test.db");
    const write = (threadId: string, data: NewEvent["data"], after: number) =>
      batch.enqueue(threadId, "main", () =>
        append(threadId, "main", encodeEvents(threadId, "main", [ev(data)]), after),
      );
    await write("t1", { n: 1 }, 0);
    expect(heads.get("t1", "main")?.[0]).toBe(1);
    failCommit = true;
    const results = await Promise.allSettled([
      write("t1", { n: 2 }, 1),
      write("t1", { n: 3 }, 2),
      write("t2", { m: 1 }, 0),
      write("t1", { stale: true }, 0),
    ]);
    const reasons = results.map((r) => (r as PromiseRejectedResult).reason as Error);
    expect(reasons.slice(0, 3).map((e) => e.message)).toEqual([
      'SQLite state store test.db failed on thread "t1": disk I/O error.',
      'SQLite state store test.db failed on thread "t1": disk I/O error.',
      'SQLite state store test.db failed on thread "t2": disk I/O error.',
    ]);
    // One that failed on its own keeps its own error.
    expect(reasons[3]!.message).toBe(stale("t1", 3, 0));
    expect(db.inTransaction).toBe(false);
    expect(heads.get("t1", "main")?.[0]).toBe(1);
    expect(heads.get("t2", "main")).toBeUndefined();
    failCommit = false;
    expect(seqData(await write("t1", { n: 2 }, 1))).toEqual([[2, { n: 2 }]]);
    expect(fileRows(path, "t1")).toEqual([
      [1, '{"n":1}'],
      [2, '{"n":2}'],
    ]);
    expect(fileRows(path, "t2")).toEqual([]);
    // SQLite rolling the transaction back by itself (as after a full disk): the writes before
    // lose theirs and reject with its error, the ones after go in a new transaction.
    const lost = await Promise.allSettled([
      write("t1", { n: 3 }, 2),
      batch.enqueue("t1", "main", () => {
        db.exec("ROLLBACK");
        throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
      }),
      write("t2", { m: 1 }, 0),
    ]);
    expect(lost.map((r) => (r.status === "rejected" ? r.reason.message : r.value))).toEqual([
      'SQLite state store test.db failed on thread "t1": database or disk is full.',
      'SQLite state store test.db failed on thread "t1": database or disk is full.',
      [expect.objectContaining({ seq: 1, data: { m: 1 } })],
    ]);
    expect(heads.get("t1", "main")?.[0]).toBe(2);
    expect(heads.get("t2", "main")?.[0]).toBe(1);
    expect(fileRows(path, "t1").map(([seq]) => seq)).toEqual([1, 2]);
    expect(fileRows(path, "t2")).toEqual([[1, '{"m":1}']]);
    db.close();
  });

  it("applies calls in the order they were made: a read commits the waiting writes of its thread first", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    const a = store.append("t1", "main", [ev({ n: 1 })], 0);
    const b = store.append("t2", "main", [ev({ m: 1 })], 0);
    // A read of another thread runs at once and leaves the writes waiting.
    const elsewhere = store.getBranch("t3", "main");
    expect(fileRows(path, "t1")).toEqual([]);
    // A read of t1 commits them first (the batch, t2's too), then reads.
    const read = store.read("t1", "main");
    expect(fileRows(path, "t1")).toEqual([[1, '{"n":1}']]);
    expect(fileRows(path, "t2")).toEqual([[1, '{"m":1}']]);
    expect(seqData(await read)).toEqual([[1, { n: 1 }]]);
    expect(await elsewhere).toBeNull();
    expect(seqData(await a)).toEqual([[1, { n: 1 }]]);
    expect(seqData(await b)).toEqual([[1, { m: 1 }]]);
    // A stop request, then the holder's check, without awaiting the request.
    await store.acquireLease("t1", "main", "run-a", 60_000);
    const asked = store.requestStop("t1", "main", "ops");
    expect(await store.stopRequested("t1", "main", "run-a")).toBe("ops");
    expect(await asked).toBe("run-a");
    await store.close();
  });

  it("commits the waiting writes when closed, and refuses writes after", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    const pending = store.append("t1", "main", [ev({ n: 1 })], 0);
    await store.close();
    expect(seqData(await pending)).toEqual([[1, { n: 1 }]]);
    await expect(store.append("t1", "main", [ev({ n: 2 })], 1)).rejects.toThrow(
      "The SqliteStateStore is closed; open a new one.",
    );
    const cold = new SqliteStateStore({ path });
    expect(seqData(await cold.read("t1", "main"))).toEqual([[1, { n: 1 }]]);
    await cold.close();
  });

  it("commits 50 threads × 5 appends, run at once, in 5 batches; a new store reads every event", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    const batches = countBatches();
    await Promise.all(
      Array.from({ length: 50 }, async (_, t) => {
        for (let i = 1; i <= 5; i++) await store.append(`t${t}`, "main", [ev({ t, i })], i - 1);
      }),
    );
    expect(batches.sizes).toEqual([50, 50, 50, 50, 50]);
    batches.restore();
    await store.close();
    const cold = new SqliteStateStore({ path });
    for (let t = 0; t < 50; t++) {
      expect(seqData(await cold.read(`t${t}`, "main"))).toEqual(
        [1, 2, 3, 4, 5].map((i) => [i, { t, i }]),
      );
    }
    expect((await cold.listThreads()).length).toBe(50);
    await cold.close();
  });

  it("splits a burst into transactions of at most BATCH_MAX_WRITES writes and BATCH_MAX_BYTES, the event loop running between them", async () => {
    expect([BATCH_MAX_WRITES, BATCH_MAX_BYTES]).toEqual([1_000, 1_048_576]);
    const store = new SqliteStateStore({ path: fresh() });
    let done = 0;
    // Appends resolved when each turn of the event loop's check phase came (immediates queued
    // before the store's own, so each sees the transactions committed before it).
    const seen: number[] = [];
    const watch = (turns: number) =>
      setImmediate(() => {
        seen.push(done);
        if (turns > 1) watch(turns - 1);
      });
    const small = Array.from({ length: 2_500 }, (_, i) =>
      store.append(`s${i}`, "main", [ev({ i })], 0).then(() => done++),
    );
    watch(3);
    await Promise.all(small);
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual([1_000, 2_000, 2_500]);
    // By bytes: events of about 300 kB, three to a transaction of at most 1 MiB.
    const pad = "x".repeat(300_000);
    done = 0;
    seen.length = 0;
    const big = Array.from({ length: 7 }, (_, i) =>
      store.append(`b${i}`, "main", [ev({ pad })], 0).then(() => done++),
    );
    watch(3);
    await Promise.all(big);
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual([3, 6, 7]);
    expect((await store.read("b6", "main")).map((e) => e.seq)).toEqual([1]);
    await store.close();
  });

  it("keeps every acknowledged append of 8 threads writing at once when the process is killed", async () => {
    const path = fresh();
    const writers = startWriters(path, ["t"], 8);
    await writers.killWhen((acked) => [...acked.values()].reduce((a, b) => a + b, 0) >= 1600);
    const threads = Array.from({ length: 8 }, (_, t) => `t${t}`);
    await expectAckedKept(path, threads, writers.acked);
  });
});
