/**
 * A version 1 file (as nodestep wrote it before version 2: `events` a rowid table and its key's
 * index, `branches` with `last_seq`, `updated_at` and `bytes` advanced by every append) opened
 * by this store: migrated to version 2 in place, with the same events, branches, sizes, times
 * and snapshots, and written on from where it was.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, closeSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { ConcurrentWriteError, StateStoreError } from "../../errors/index.js";
import { encodeEvents, eventRowBytes } from "../../stores/internal.js";
import type { NewEvent } from "../../stores/types.js";
import { SqliteStateStore } from "./index.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-sqlite-migrate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Version 1's tables, as its sqlite-state-schema.ts created them (leases before its holder columns). */
const V1_SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE branches (
  thread_id TEXT NOT NULL, branch_id TEXT NOT NULL, parent_branch TEXT, parent_seq INTEGER,
  last_seq INTEGER NOT NULL, updated_at INTEGER NOT NULL DEFAULT 0, bytes INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (thread_id, branch_id)
);
CREATE TABLE events (
  thread_id TEXT NOT NULL, branch_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL,
  run_id TEXT NOT NULL, step INTEGER, task_id TEXT, node TEXT, data TEXT NOT NULL,
  created_at INTEGER NOT NULL, PRIMARY KEY (thread_id, branch_id, seq)
);
CREATE TABLE snapshots (
  thread_id TEXT NOT NULL, branch_id TEXT NOT NULL, seq INTEGER NOT NULL, data TEXT NOT NULL,
  bytes INTEGER NOT NULL, PRIMARY KEY (thread_id, branch_id)
);
CREATE TABLE leases (
  thread_id TEXT NOT NULL, branch_id TEXT NOT NULL, owner TEXT NOT NULL, expires_at INTEGER NOT NULL,
  PRIMARY KEY (thread_id, branch_id)
);
INSERT INTO meta VALUES ('format', 'nodestep-state-store'), ('schema_version', '1');
`;

function ev(step: number, data: NewEvent["data"], taskId: string | null = null): NewEvent {
  return { type: "task_finished", runId: "run-é", step, taskId, node: "n€", data };
}

/** Write events to a version 1 file as version 1's append did: the rows, and the branch advanced. */
function v1Append(
  db: Database.Database,
  threadId: string,
  branchId: string,
  events: NewEvent[],
  createdAt: number,
): void {
  const encoded = encodeEvents(threadId, branchId, events);
  const row = db
    .prepare("SELECT last_seq FROM branches WHERE thread_id = ? AND branch_id = ?")
    .get(threadId, branchId) as { last_seq: number } | undefined;
  let seq = row?.last_seq ?? 0;
  if (!row)
    db.prepare(
      "INSERT INTO branches (thread_id, branch_id, last_seq, updated_at, bytes) VALUES (?, ?, 0, 0, 0)",
    ).run(threadId, branchId);
  let bytes = 0;
  for (const e of encoded) {
    db.prepare("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").run(
      threadId,
      branchId,
      ++seq,
      e.type,
      e.runId,
      e.step,
      e.taskId,
      e.node,
      e.data,
      createdAt,
    );
    bytes += eventRowBytes(threadId, branchId, e);
  }
  db.prepare(
    "UPDATE branches SET last_seq = ?, updated_at = ?, bytes = bytes + ? WHERE thread_id = ? AND branch_id = ?",
  ).run(seq, createdAt, bytes, threadId, branchId);
}

/** Whether this process can open `path` for writing. */
function writable(path: string): boolean {
  try {
    closeSync(openSync(path, "r+"));
    return true;
  } catch {
    return false;
  }
}

/**
 * Make `path` read-only for this process: its mode, and for root (whom the mode does not stop)
 * the immutable attribute; `false` when neither works here (then the test is skipped).
 */
function makeReadOnly(path: string): boolean {
  chmodSync(path, 0o444);
  if (!writable(path)) return true;
  try {
    execFileSync("chattr", ["+i", path], { stdio: "ignore" });
  } catch {
    return false;
  }
  return !writable(path);
}

function makeWritable(path: string): void {
  try {
    execFileSync("chattr", ["-i", path], { stdio: "ignore" });
  } catch {
    // Not immutable (or no chattr): the mode is enough.
  }
  chmodSync(path, 0o644);
}

describe("SqliteStateStore on a version 1 file", () => {
  it("migrates it to version 2 and reads and writes it as before", async () => {
    const path = join(dir, "v1.db");
    const db = new Database(path);
    db.pragma("journal_mode = WAL");
    db.exec(V1_SCHEMA);
    v1Append(db, "t-ü", "main", [ev(0, { a: "é" }), ev(1, [1, 2], "k1")], 1_000);
    v1Append(db, "t-ü", "main", [ev(2, "three")], 2_000);
    db.prepare(
      "INSERT INTO branches (thread_id, branch_id, parent_branch, parent_seq, last_seq) VALUES ('t-ü', 'fork', 'main', 2, 2)",
    ).run();
    v1Append(db, "t-ü", "fork", [ev(3, { f: true })], 3_000);
    db.prepare(
      "INSERT INTO branches (thread_id, branch_id, parent_branch, parent_seq, last_seq) VALUES ('t-ü', 'empty', 'main', 1, 1)",
    ).run();
    v1Append(db, "other", "main", [ev(0, null)], 500);
    db.prepare("INSERT INTO snapshots VALUES ('t-ü', 'main', 3, '{\"s\":1}', 40)").run();
    db.prepare("INSERT INTO leases VALUES ('other', 'main', 'old-run', ?)").run(
      Date.now() + 60_000,
    );
    const v1Bytes = (db.prepare("SELECT sum(bytes) AS n FROM branches").get() as { n: number }).n;
    db.close();

    const store = new SqliteStateStore({ path });
    const check = new Database(path, { readonly: true });
    expect(check.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({
      value: "2",
    });
    expect(
      (
        check.prepare("SELECT sql FROM sqlite_master WHERE name = 'events'").get() as {
          sql: string;
        }
      ).sql,
    ).toContain("WITHOUT ROWID");
    expect(
      check.prepare("SELECT name FROM pragma_table_info('branches') ORDER BY cid").pluck().all(),
    ).toEqual(["thread_id", "branch_id", "parent_branch", "parent_seq", "last_seq", "updated_at"]);
    check.close();

    expect(await store.sizeBytes()).toBe(v1Bytes + 40);
    expect((await store.read("t-ü", "fork")).map((e) => [e.seq, e.data, e.createdAt])).toEqual([
      [1, { a: "é" }, 1_000],
      [2, [1, 2], 1_000],
      [3, { f: true }, 3_000],
    ]);
    expect((await store.read("t-ü", "main")).map((e) => [e.seq, e.taskId, e.node])).toEqual([
      [1, null, "n€"],
      [2, "k1", "n€"],
      [3, null, "n€"],
    ]);
    expect((await store.listBranches("t-ü")).map((b) => [b.branchId, b.lastSeq])).toEqual([
      ["main", 3],
      ["fork", 3],
      ["empty", 1],
    ]);
    expect(await store.listThreads()).toEqual([
      { threadId: "t-ü", branches: ["main", "fork", "empty"], updatedAt: 3_000 },
      { threadId: "other", branches: ["main"], updatedAt: 500 },
    ]);
    expect(await store.loadSnapshot("t-ü", "main")).toEqual({ seq: 3, data: { s: 1 } });
    // The lease a version 1 writer holds (no holder columns: it waits for its time to live).
    expect(await store.acquireLease("other", "main", "new-run", 60_000)).toBe(false);

    // Written on from where it was: seqs, bytes and times go on.
    const [e4] = await store.append("t-ü", "main", [ev(3, "four")], 3);
    expect(e4!.seq).toBe(4);
    const [f2] = await store.append("t-ü", "empty", [ev(1, "e")], 1);
    expect(f2!.seq).toBe(2);
    const more =
      eventRowBytes("t-ü", "main", encodeEvents("t-ü", "main", [ev(3, "four")])[0]!) +
      eventRowBytes("t-ü", "empty", encodeEvents("t-ü", "empty", [ev(1, "e")])[0]!);
    expect(await store.sizeBytes()).toBe(v1Bytes + 40 + more);
    expect((await store.getBranch("t-ü", "main"))!.lastSeq).toBe(4);
    // The rows keep version 1's last_seq and updated_at ("main"'s stale now, at 3 and 2,000);
    // what is read and checked comes from the events (see sqlite-state-migrate.ts).
    const raw = new Database(path, { readonly: true });
    expect(
      raw
        .prepare(
          "SELECT branch_id, last_seq, updated_at FROM branches WHERE thread_id = 't-ü' ORDER BY rowid",
        )
        .raw(true)
        .all(),
    ).toEqual([
      ["main", 3, 2_000],
      ["fork", 3, 3_000],
      ["empty", 1, 0],
    ]);
    raw.close();
    expect((await store.listBranches("t-ü")).map((b) => [b.branchId, b.lastSeq])).toEqual([
      ["main", 4],
      ["fork", 3],
      ["empty", 2],
    ]);
    expect((await store.read("t-ü", "empty")).map((e) => [e.seq, e.data])).toEqual([
      [1, { a: "é" }],
      [2, "e"],
    ]);
    expect(await store.listThreads({ limit: 1 })).toEqual([
      {
        threadId: "t-ü",
        branches: ["main", "fork", "empty"],
        updatedAt: Math.max(e4!.createdAt, f2!.createdAt),
      },
    ]);
    const stale = await store.append("t-ü", "main", [ev(4, "five")], 3).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(ConcurrentWriteError);
    expect((stale as Error).message).toBe(
      'Branch "main" of thread "t-ü" is at seq 4, not 3: another writer appended since this one read it. Nothing was written; reload the branch and retry.',
    );
    await store.close();

    // Opened again: version 2 as it is, nothing migrated twice.
    const again = new SqliteStateStore({ path });
    expect(await again.sizeBytes()).toBe(v1Bytes + 40 + more);
    expect((await again.read("t-ü", "main")).map((e) => e.data)).toEqual([
      { a: "é" },
      [1, 2],
      "three",
      "four",
    ]);
    await again.close();
  });

  it("refuses a version 1 file it cannot write, saying why, and leaves it at version 1", async (ctx) => {
    const path = join(dir, "v1-read-only.db");
    const db = new Database(path);
    db.pragma("journal_mode = WAL");
    db.exec(V1_SCHEMA);
    v1Append(db, "t", "main", [ev(0, "a")], 1_000);
    db.close();
    if (!makeReadOnly(path)) ctx.skip();
    let err: unknown = null;
    try {
      new SqliteStateStore({ path });
    } catch (e) {
      err = e;
    } finally {
      makeWritable(path);
    }
    expect(err).toBeInstanceOf(StateStoreError);
    expect((err as Error).message).toBe(
      `${path} is a version 1 state store file, which this nodestep migrates to version 2 when it opens it, and this process cannot write it (attempt to write a readonly database). Open it once with write access to migrate it, or open it with the nodestep version that wrote it. Nothing was changed.`,
    );
    const check = new Database(path, { readonly: true });
    expect(check.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({
      value: "1",
    });
    check.close();
    const store = new SqliteStateStore({ path });
    expect((await store.read("t", "main")).map((e) => [e.seq, e.data])).toEqual([[1, "a"]]);
    await store.close();
  });
});
