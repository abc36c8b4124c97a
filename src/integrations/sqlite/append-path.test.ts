/**
 * SqliteStateStore's append path as the file holds it: the `branches` row a first append makes
 * (and no later one changes), the rows of `events` with the branch's running total of bytes,
 * what getBranch and sizeBytes make of them, and what a refused append leaves (nothing). The
 * store contract (sqlite-state-store.test.ts) checks what `append` returns and `read` gives back.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { ConcurrentWriteError, UnknownBranchError } from "../../errors/index.js";
import { encodeEvents, eventRowBytes } from "../../stores/internal.js";
import type { NewEvent } from "../../stores/types.js";
import { SqliteStateStore } from "./index.js";
import { BranchHeads } from "./sqlite-state-append.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-sqlite-append-"));
let n = 0;
const fresh = () => join(dir, `store-${++n}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function ev(step: number, data: NewEvent["data"]): NewEvent {
  return { type: "step_committed", runId: "r1", step, taskId: null, node: null, data };
}

/** Logical bytes of these events' rows on this thread and branch (as sizeBytes counts them). */
function rowBytes(threadId: string, branchId: string, events: NewEvent[]): number {
  return encodeEvents(threadId, branchId, events).reduce(
    (sum, e) => sum + eventRowBytes(threadId, branchId, e),
    0,
  );
}

interface Row {
  branch_id: string;
  parent_branch: string | null;
  parent_seq: number | null;
  last_seq: number;
  updated_at: number;
}

function rows(path: string): { branches: Row[]; events: unknown[] } {
  const db = new Database(path, { readonly: true });
  try {
    return {
      branches: db
        .prepare(
          "SELECT branch_id, parent_branch, parent_seq, last_seq, updated_at FROM branches ORDER BY rowid",
        )
        .all() as Row[],
      events: db
        .prepare(
          "SELECT thread_id, branch_id, seq, type, run_id, step, task_id, node, data, created_at, total_bytes FROM events ORDER BY thread_id, branch_id, seq",
        )
        .all(),
    };
  } finally {
    db.close();
  }
}

describe("SqliteStateStore append (the rows it writes)", () => {
  it("makes main at 0 with the first append's time, and writes only events from then on", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    const first = [ev(0, { a: 1 }), ev(1, { b: "two" })];
    const stored = await store.append("t", "main", first, 0);
    const main = {
      branch_id: "main",
      parent_branch: null,
      parent_seq: null,
      last_seq: 0,
      updated_at: stored[0]!.createdAt,
    };
    expect(rows(path).branches).toEqual([main]);
    const second = [ev(2, { c: [3] })];
    const more = await store.append("t", "main", second, 2);
    // The branches row is as the first append made it: the events say where the branch is.
    expect(rows(path).branches).toEqual([main]);
    const [b1, b2] = first.map((e) => rowBytes("t", "main", [e]));
    const b3 = rowBytes("t", "main", second);
    const row = (seq: number, step: number, data: string, createdAt: number, total: number) => ({
      thread_id: "t",
      branch_id: "main",
      seq,
      type: "step_committed",
      run_id: "r1",
      step,
      task_id: null,
      node: null,
      data,
      created_at: createdAt,
      total_bytes: total,
    });
    expect(rows(path).events).toEqual([
      row(1, 0, '{"a":1}', stored[0]!.createdAt, b1!),
      row(2, 1, '{"b":"two"}', stored[0]!.createdAt, b1! + b2!),
      row(3, 2, '{"c":[3]}', more[0]!.createdAt, b1! + b2! + b3),
    ]);
    expect(await store.getBranch("t", "main")).toEqual({
      threadId: "t",
      branchId: "main",
      parent: null,
      lastSeq: 3,
    });
    expect(await store.sizeBytes()).toBe(b1! + b2! + b3);
    expect((await store.listThreads())[0]!.updatedAt).toBe(more[0]!.createdAt);
    await store.close();
  });

  it("counts the key columns of every row in bytes (multi-byte thread and branch ids)", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    const events = [ev(0, 1), ev(1, 2), ev(2, 3)];
    await store.append("thread-é€", "main", events, 0);
    const fork = await store.createBranch("thread-é€", "thread-é€/main/2", "fork-ü");
    await store.append("thread-é€", "fork-ü", [ev(2, "x")], 2);
    const { branches, events: rowsOfEvents } = rows(path);
    // A fork's row keeps the seq it starts after; its events carry their own running total.
    expect(branches.map((b) => [b.branch_id, b.parent_branch, b.parent_seq, b.last_seq])).toEqual([
      ["main", null, null, 0],
      ["fork-ü", "main", 2, 2],
    ]);
    expect(fork.lastSeq).toBe(2);
    expect((await store.listBranches("thread-é€")).map((b) => b.lastSeq)).toEqual([3, 3]);
    expect(
      (rowsOfEvents as { branch_id: string; seq: number; total_bytes: number }[]).map((r) => [
        r.branch_id,
        r.seq,
        r.total_bytes,
      ]),
    ).toEqual([
      ["fork-ü", 3, rowBytes("thread-é€", "fork-ü", [ev(2, "x")])],
      ["main", 1, rowBytes("thread-é€", "main", events.slice(0, 1))],
      ["main", 2, rowBytes("thread-é€", "main", events.slice(0, 2))],
      ["main", 3, rowBytes("thread-é€", "main", events)],
    ]);
    expect(await store.sizeBytes()).toBe(
      rowBytes("thread-é€", "main", events) + rowBytes("thread-é€", "fork-ü", [ev(2, "x")]),
    );
    // Each row counts its thread id's 12 UTF-8 bytes and its branch id's (4 for main, 7 here).
    expect(rowBytes("thread-é€", "fork-ü", [ev(2, "x")])).toBe(
      rowBytes("t", "b", [ev(2, "x")]) + 11 + 6,
    );
    await store.close();
  });

  it("leaves the rows as they were when the append is refused", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    await store.append("t", "main", [ev(0, 1)], 0);
    const before = rows(path);
    for (const expected of [0, 2, 7]) {
      const err = await store.append("t", "main", [ev(1, 2), ev(2, 3)], expected).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConcurrentWriteError);
      expect((err as Error).message).toBe(
        `Branch "main" of thread "t" is at seq 1, not ${expected}: another writer appended since this one read it. Nothing was written; reload the branch and retry.`,
      );
    }
    // A new thread's first append must expect 0: it says the branch is at 0.
    const stale = await store.append("new", "main", [ev(0, 1)], 4).then(
      () => null,
      (e: unknown) => e,
    );
    expect(stale).toBeInstanceOf(ConcurrentWriteError);
    expect((stale as Error).message).toBe(
      'Branch "main" of thread "new" is at seq 0, not 4: another writer appended since this one read it. Nothing was written; reload the branch and retry.',
    );
    const unknown = await store.append("t", "nope", [ev(0, 1)], 0).then(
      () => null,
      (e: unknown) => e,
    );
    expect(unknown).toBeInstanceOf(UnknownBranchError);
    expect((unknown as Error).message).toBe(
      'Thread "t" has no branch "nope". Branches other than "main" are made with createBranch.',
    );
    expect(rows(path)).toEqual(before);
    await store.close();
  });

  it("checks an empty append like any other and writes nothing for it", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    expect(await store.append("t", "main", [], 0)).toEqual([]);
    expect(rows(path)).toEqual({ branches: [], events: [] });
    await store.append("t", "main", [ev(0, 1)], 0);
    const before = rows(path);
    expect(await store.append("t", "main", [], 1)).toEqual([]);
    await expect(store.append("t", "main", [], 0)).rejects.toBeInstanceOf(ConcurrentWriteError);
    await expect(store.append("t", "other", [], 0)).rejects.toBeInstanceOf(UnknownBranchError);
    expect(rows(path)).toEqual(before);
    await store.close();
  });
});

describe("SqliteStateStore append (the branch heads a store keeps)", () => {
  const refusal = (e: unknown) => [(e as Error).constructor.name, (e as Error).message];

  it("sees another connection's appends: a stale expected seq is refused, not written after them", async () => {
    const path = fresh();
    const a = new SqliteStateStore({ path });
    const b = new SqliteStateStore({ path });
    await a.append("t", "main", [ev(0, 1), ev(1, 2), ev(2, 3)], 0);
    await b.append("t", "main", [ev(3, 4), ev(4, 5)], 3);
    expect(refusal(await a.append("t", "main", [ev(3, "a")], 3).catch((e: unknown) => e))).toEqual([
      "ConcurrentWriteError",
      'Branch "main" of thread "t" is at seq 5, not 3: another writer appended since this one read it. Nothing was written; reload the branch and retry.',
    ]);
    const [next] = await a.append("t", "main", [ev(5, "a")], 5);
    expect(next!.seq).toBe(6);
    expect(await b.sizeBytes()).toBe(
      rowBytes("t", "main", [ev(0, 1), ev(1, 2), ev(2, 3), ev(3, 4), ev(4, 5), ev(5, "a")]),
    );
    await a.close();
    await b.close();
  });

  it("sees a thread another connection deleted and began again, and one it deleted itself", async () => {
    const path = fresh();
    const a = new SqliteStateStore({ path });
    const b = new SqliteStateStore({ path });
    await a.append("t", "main", [ev(0, 1), ev(1, 2), ev(2, 3), ev(3, 4), ev(4, 5)], 0);
    expect(await b.deleteThread("t")).toEqual(["t"]);
    await b.append("t", "main", [ev(0, "b1"), ev(1, "b2")], 0);
    // a's last append left the branch at 5: its own head of the branch is out of date now.
    expect(refusal(await a.append("t", "main", [ev(5, "a")], 5).catch((e: unknown) => e))).toEqual([
      "ConcurrentWriteError",
      'Branch "main" of thread "t" is at seq 2, not 5: another writer appended since this one read it. Nothing was written; reload the branch and retry.',
    ]);
    expect((await a.read("t", "main")).map((e) => e.data)).toEqual(["b1", "b2"]);
    await a.append("t", "main", [ev(2, "a3")], 2);
    expect(await a.deleteThread("t")).toEqual(["t"]);
    const [first] = await a.append("t", "main", [ev(0, "new")], 0);
    expect(first!.seq).toBe(1);
    expect(await b.sizeBytes()).toBe(rowBytes("t", "main", [ev(0, "new")]));
    expect((await b.read("t", "main")).map((e) => e.data)).toEqual(["new"]);
    await a.close();
    await b.close();
  });

  it("goes on after more branches than it keeps heads of (BranchHeads.MAX)", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    const threads = BranchHeads.MAX + 44;
    for (let round = 0; round < 2; round++) {
      for (let t = 0; t < threads; t++) {
        const [e] = await store.append(`t${t}`, "main", [ev(round, { t, round })], round);
        expect(e!.seq).toBe(round + 1);
      }
    }
    await expect(store.append("t0", "main", [ev(2, "x")], 1)).rejects.toBeInstanceOf(
      ConcurrentWriteError,
    );
    expect((await store.read("t0", "main")).map((e) => e.data)).toEqual([
      { t: 0, round: 0 },
      { t: 0, round: 1 },
    ]);
    expect(await store.sizeBytes()).toBe(
      Array.from({ length: threads }, (_, t) =>
        rowBytes(`t${t}`, "main", [ev(0, { t, round: 0 }), ev(1, { t, round: 1 })]),
      ).reduce((a, b) => a + b, 0),
    );
    await store.close();
  });
});
