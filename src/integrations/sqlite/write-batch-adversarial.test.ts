/**
 * Adversarial review of SqliteStateStore's group commit (sqlite-write-batch.ts): batches that
 * mix good and bad writes, leases taken and given back within one batch, reads of writes not
 * awaited, deletions and forks next to waiting writes, bad arguments, a second connection
 * writing between batches, and the branch-heads cache overflowing inside one batch.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { ConcurrentWriteError, StateStoreError } from "../../errors/index.js";
import type { NewEvent, StoredEvent } from "../../stores/types.js";
import { SqliteStateStore } from "./index.js";
import { ev, seqData } from "./write-batch.fixture.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-sqlite-batchx-"));
let n = 0;
const fresh = () => join(dir, `store-${++n}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const outcome = (r: PromiseSettledResult<unknown>) =>
  r.status === "fulfilled"
    ? r.value
    : `${(r.reason as Error).name}: ${(r.reason as Error).message}`;
const stale = (threadId: string, actual: number, expected: number) =>
  `Branch "main" of thread "${threadId}" is at seq ${actual}, not ${expected}: another writer appended since this one read it. Nothing was written; reload the branch and retry.`;

describe("SqliteStateStore group commit, adversarial", () => {
  it("rejects a bad append in the middle of a batch alone: non-JSON data, lone surrogates kept, a huge one committed", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    const huge = "y".repeat(3_000_000);
    const results = await Promise.allSettled([
      store.append("t", "main", [ev({ n: 1 })], 0),
      store.append("t", "main", [ev({ big: 1n as unknown as number })], 1),
      store.append("t", "main", [ev({ s: "a\ud800b" })], 1),
      store.append("t", "main", [ev({ huge })], 2),
      store.append("t", "main", [ev({ n: 4 })], 3),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
      "fulfilled",
    ]);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(StateStoreError);
    await store.close();
    const cold = new SqliteStateStore({ path });
    const back = await cold.read("t", "main");
    expect(back.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(back[1]!.data).toEqual({ s: "a\ud800b" });
    expect((back[2]!.data as { huge: string }).huge.length).toBe(3_000_000);
    await cold.close();
  });

  it("takes, gives back and takes again a lease within one batch, as separate calls would", async () => {
    const store = new SqliteStateStore({ path: fresh() });
    const results = await Promise.allSettled([
      store.requestStop("t", "main", "ops"),
      store.acquireLease("t", "main", "a", 60_000),
      store.acquireLease("t", "main", "b", 60_000),
      store.releaseLease("t", "main", "b"),
      store.acquireLease("t", "main", "b", 60_000),
      store.requestStop("t", "main", "ops"),
      store.releaseLease("t", "main", "a"),
      store.acquireLease("t", "main", "b", 60_000),
      store.renewLease("t", "main", "a", 60_000),
      store.renewLease("t", "main", "b", 60_000),
    ]);
    expect(results.map(outcome)).toEqual([
      null,
      true,
      false,
      undefined,
      false,
      "a",
      undefined,
      true,
      false,
      true,
    ]);
    // b holds it; the stop request was a's and went with a's lease.
    expect(await store.stopRequested("t", "main", "b")).toBeNull();
    expect(await store.acquireLease("t", "main", "a", 60_000)).toBe(false);
    await store.close();
  });

  it("rejects bad arguments at the call, alone, and commits the rest of the batch", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    const bad = (x: unknown) => x as string;
    const results = await Promise.allSettled([
      store.append("t", "main", [ev({ n: 1 })], 0),
      store.append(bad(undefined), "main", [ev({ n: 1 })], 0),
      store.append("t", "main", [ev({ n: 2 })], bad("1") as unknown as number),
      store.acquireLease("t", "main", "", 1000),
      store.acquireLease("t", "main", "a", -1),
      store.releaseLease("t", "main", bad(undefined)),
      store.releaseLease("t", "main", bad({ owner: "a" })),
      store.requestStop("t", "main", bad(7)),
      store.append("t", "main", [ev({ n: 2 })], 1),
      store.append("t", "main", bad(null) as unknown as NewEvent[], 2),
    ]);
    // As before group commit (each call its own transaction): same outcomes, same messages.
    expect(
      results.map((r) =>
        r.status === "fulfilled"
          ? r.value === undefined
            ? "ok"
            : seqData(r.value as StoredEvent[])
          : `${r.reason.constructor.name}: ${r.reason.message}`,
      ),
    ).toEqual([
      [[1, { n: 1 }]],
      "StateStoreError: A thread id must be a non-empty string, got undefined",
      'StateStoreError: expectedLastSeq must be an integer ≥ 0, got "1"',
      'StateStoreError: A lease owner must be a non-empty string, got ""',
      "StateStoreError: A lease ttlMs must be a positive number of ms up to 2147483647, got -1",
      "StateStoreError: A lease owner must be a non-empty string, got undefined",
      'StateStoreError: A lease owner must be a non-empty string, got {"owner":"a"}',
      "StateStoreError: A stop request's by must be a non-empty string, got 7",
      [[2, { n: 2 }]],
      "StateStoreError: events must be an array, got null",
    ]);
    expect(seqData(await store.read("t", "main"))).toEqual([
      [1, { n: 1 }],
      [2, { n: 2 }],
    ]);
    await store.close();
  });

  it("reads the writes not awaited: getEvent, getBranch, listBranches, listThreads, sizeBytes, snapshots, forks", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    const a = store.append("t", "main", [ev({ n: 1 }), ev({ n: 2 })], 0);
    expect((await store.getEvent("t/main/2"))?.data).toEqual({ n: 2 });
    const b = store.append("t", "main", [ev({ n: 3 })], 2);
    expect((await store.getBranch("t", "main"))?.lastSeq).toBe(3);
    const c = store.append("u", "main", [ev({ m: 1 })], 0);
    expect((await store.listThreads()).map((t) => t.threadId).sort()).toEqual(["t", "u"]);
    const d = store.append("v", "main", [ev({ k: 1 })], 0);
    expect(await store.sizeBytes()).toBeGreaterThan(0);
    expect((await store.listBranches("v")).map((x) => x.branchId)).toEqual(["main"]);
    const e = store.append("t", "main", [ev({ n: 4 })], 3);
    await store.saveSnapshot("t", "main", { seq: 4, data: { n: 4 } });
    expect((await store.loadSnapshot("t", "main"))?.seq).toBe(4);
    const f = store.append("t", "main", [ev({ n: 5 })], 4);
    const fork = await store.createBranch("t", "t/main/5", "fk");
    expect(fork.lastSeq).toBe(5);
    expect(seqData(await store.append("t", "fk", [ev({ f: 6 })], 5))).toEqual([[6, { f: 6 }]]);
    for (const p of [a, b, c, d, e, f]) await p;
    expect((await store.read("t", "fk")).map((x) => x.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    await store.close();
  });

  it("deletes a thread whose appends are waiting, and keeps the other threads' ones", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    await store.append("t", "main", [ev({ n: 1 })], 0);
    const before = store.append("t", "main", [ev({ n: 2 })], 1);
    const other = store.append("u", "main", [ev({ m: 1 })], 0);
    const deleted = store.deleteThread("t");
    const after = store.append("t", "main", [ev({ n: 3 })], 2);
    const otherAfter = store.append("u", "main", [ev({ m: 2 })], 1);
    const results = await Promise.allSettled([before, other, deleted, after, otherAfter]);
    expect(results.map((r) => r.status)).toEqual(Array(5).fill("fulfilled"));
    expect((results[2] as PromiseFulfilledResult<string[]>).value).toEqual(["t"]);
    expect(await store.read("t", "main")).toEqual([]);
    // A new first append to the deleted thread starts at seq 1 (no stale head).
    expect(seqData(await store.append("t", "main", [ev({ n: 1 })], 0))).toEqual([[1, { n: 1 }]]);
    expect(seqData(await store.read("u", "main"))).toEqual([
      [1, { m: 1 }],
      [2, { m: 2 }],
    ]);
    await store.close();
  });

  it("sees another connection's appends between batches: a stale head is refused, never a duplicate seq", async () => {
    const path = fresh();
    const a = new SqliteStateStore({ path });
    const b = new SqliteStateStore({ path });
    await a.append("t", "main", [ev({ by: "a", n: 1 })], 0);
    await b.append("t", "main", [ev({ by: "b", n: 2 })], 1);
    const [staleA, okA, okOther] = await Promise.allSettled([
      a.append("t", "main", [ev({ by: "a", n: 2 })], 1),
      a.append("t", "main", [ev({ by: "a", n: 3 })], 2),
      a.append("u", "main", [ev({ by: "a" })], 0),
    ]);
    expect((staleA as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrentWriteError);
    expect((staleA as PromiseRejectedResult).reason.message).toBe(stale("t", 2, 1));
    expect(okA.status).toBe("fulfilled");
    expect(okOther.status).toBe("fulfilled");
    // b's cache is stale now too.
    await expect(b.append("t", "main", [ev({ by: "b" })], 2)).rejects.toThrow(stale("t", 3, 2));
    // A raw connection deletes the thread and writes seq 1 again with other bytes.
    const raw = new Database(path);
    raw.exec("DELETE FROM events WHERE thread_id = 't'");
    raw.close();
    await expect(a.append("t", "main", [ev({ n: 4 })], 3)).rejects.toThrow(ConcurrentWriteError);
    await a.close();
    await b.close();
  });

  it("keeps heads right when one batch touches more branches than the heads cache holds", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    const threads = Array.from({ length: 300 }, (_, i) => `t${i}`);
    await Promise.all(threads.map((t) => store.append(t, "main", [ev({ t })], 0)));
    const second = await Promise.allSettled(
      threads.flatMap((t) => [
        store.append(t, "main", [ev({ t, n: 2 })], 1),
        store.append(t, "main", [ev({ t, stale: true })], 1),
      ]),
    );
    expect(second.map((r) => r.status)).toEqual(threads.flatMap(() => ["fulfilled", "rejected"]));
    const third = await Promise.allSettled(
      threads.map((t) => store.append(t, "main", [ev({ t, n: 3 })], 2)),
    );
    expect(third.every((r) => r.status === "fulfilled")).toBe(true);
    await store.close();
    const db = new Database(path, { readonly: true });
    expect(
      db.prepare("SELECT COUNT(*) FROM events GROUP BY thread_id HAVING COUNT(*) <> 3").all(),
    ).toEqual([]);
    db.close();
  });

  it("commits the writes queued from inside another write's callbacks, and those queued at close", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    const chained = store
      .append("t", "main", [ev({ n: 1 })], 0)
      .then(() => store.append("t", "main", [ev({ n: 2 })], 1))
      .then(() => store.acquireLease("t", "main", "a", 60_000));
    expect(await chained).toBe(true);
    const many = Array.from({ length: 20 }, (_, i) =>
      store.append(`c${i}`, "main", [ev({ i })], 0),
    );
    const closing = store.close();
    const late = store.append("t", "main", [ev({ n: 3 })], 2);
    await closing;
    expect((await Promise.allSettled(many)).every((r) => r.status === "fulfilled")).toBe(true);
    await expect(late).rejects.toThrow("The SqliteStateStore is closed; open a new one.");
    const cold = new SqliteStateStore({ path });
    expect((await cold.listThreads()).length).toBe(21);
    expect(await cold.acquireLease("t", "main", "b", 60_000)).toBe(false);
    await cold.close();
  });

  it("stores the events as they were at the call, though the caller changes them before the batch runs", async () => {
    const store = new SqliteStateStore({ path: fresh() });
    const events = [ev({ n: 1, list: [1] })];
    const p = store.append("t", "main", events, 0);
    (events[0]!.data as { n: number }).n = 99;
    ((events[0]!.data as { list: number[] }).list as number[]).push(2);
    events[0]!.runId = "changed";
    events.push(ev({ n: 2 }));
    const stored = await p;
    expect(stored.map((e) => [e.seq, e.runId, e.data])).toEqual([[1, "r1", { n: 1, list: [1] }]]);
    expect((await store.read("t", "main")).map((e) => [e.seq, e.runId, e.data])).toEqual([
      [1, "r1", { n: 1, list: [1] }],
    ]);
    await store.close();
  });

  it("checks a fork's seq against the writes before it in the batch; an empty append changes nothing", async () => {
    const store = new SqliteStateStore({ path: fresh() });
    await store.append("t", "main", [ev({ n: 1 }), ev({ n: 2 })], 0);
    await store.createBranch("t", "t/main/1", "fk");
    const results = await Promise.allSettled([
      store.append("t", "fk", [], 1),
      store.append("t", "fk", [ev({ f: 2 })], 1),
      store.append("t", "fk", [ev({ f: 9 })], 1),
      store.append("t", "fk", [], 2),
      store.append("t", "fk", [], 1),
      store.append("t", "fk", [ev({ f: 3 })], 2),
      store.append("u", "main", [], 0),
      store.append("u", "main", [ev({ u: 1 })], 0),
    ]);
    expect(results.map(outcome)).toEqual([
      [],
      [expect.objectContaining({ seq: 2, branchId: "fk", data: { f: 2 } })],
      `ConcurrentWriteError: ${stale("t", 2, 1).replace('"main"', '"fk"')}`,
      [],
      `ConcurrentWriteError: ${stale("t", 2, 1).replace('"main"', '"fk"')}`,
      [expect.objectContaining({ seq: 3, branchId: "fk", data: { f: 3 } })],
      [],
      [expect.objectContaining({ seq: 1, threadId: "u", data: { u: 1 } })],
    ]);
    expect((await store.read("t", "fk")).map((e) => [e.seq, e.data])).toEqual([
      [1, { n: 1 }],
      [2, { f: 2 }],
      [3, { f: 3 }],
    ]);
    await store.close();
  });

  it("counts the same bytes for writes made in one batch as made one at a time", async () => {
    const batched = new SqliteStateStore({ path: fresh() });
    const single = new SqliteStateStore({ path: fresh() });
    const writes: [string, NewEvent[], number][] = [
      ["t", [ev({ n: 1, s: "é" })], 0],
      ["t", [ev({ stale: true })], 0],
      ["t", [ev({ n: 2 }), ev({ n: 3, s: "𝄞" })], 1],
      ["u", [ev({ m: 1 })], 0],
      ["t", [ev({ n: 4 })], 3],
    ];
    await Promise.allSettled(writes.map(([t, e, after]) => batched.append(t, "main", e, after)));
    for (const [t, e, after] of writes) await single.append(t, "main", e, after).catch(() => {});
    expect(await batched.sizeBytes()).toBe(await single.sizeBytes());
    const rows = (path: string) => {
      const db = new Database(path, { readonly: true });
      try {
        return db
          .prepare("SELECT thread_id, seq, total_bytes FROM events ORDER BY 1, 2")
          .raw()
          .all();
      } finally {
        db.close();
      }
    };
    expect(rows(batched.path)).toEqual(rows(single.path));
    await batched.close();
    await single.close();
  });
});
