/**
 * A call of `SqliteStateStore` with a bad argument rejects before it commits the writes waiting
 * in the store's batch: they stay queued for their own tick. Checked through a second
 * connection to the file, synchronously after the bad call (the batch commits on a later tick).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { StateStoreError } from "../../errors/index.js";
import type { NewEvent } from "../../stores/types.js";
import { SqliteStateStore } from "./index.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-sqlite-bad-call-"));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ev: NewEvent = {
  type: "task_finished",
  runId: "r1",
  step: 0,
  taskId: "k",
  node: "a",
  data: null,
};

/** Rows of `events` another connection sees now. */
function committed(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM events").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe("SqliteStateStore: a bad call commits nothing", () => {
  const bad: [string, (s: SqliteStateStore) => Promise<unknown>, string][] = [
    [
      "listThreads, limit -1",
      (s) => s.listThreads({ limit: -1 }),
      "listThreads: limit must be an integer ≥ 1, got -1",
    ],
    [
      "listThreads, limit 1.5",
      (s) => s.listThreads({ limit: 1.5 }),
      "listThreads: limit must be an integer ≥ 1, got 1.5",
    ],
    [
      'listThreads, limit "x"',
      (s) => s.listThreads({ limit: "x" as never }),
      'listThreads: limit must be an integer ≥ 1, got "x"',
    ],
    [
      "listThreads, offset -1",
      (s) => s.listThreads({ offset: -1 }),
      "listThreads: offset must be an integer ≥ 0, got -1",
    ],
    [
      "read, afterSeq -1",
      (s) => s.read("t", "main", { afterSeq: -1 }),
      "afterSeq must be an integer ≥ 0, got -1",
    ],
    [
      "createBranch, branch id with /",
      (s) => s.createBranch("t", "t/main/1", "a/b"),
      'A branch id must be a non-empty string without "/", NUL characters or lone surrogates, got "a/b"',
    ],
    [
      "saveSnapshot, data not JSON",
      (s) => s.saveSnapshot("t", "main", { seq: 1, data: { f: () => 1 } } as never),
      'Cannot save a snapshot of thread "t" branch "main": snapshot.data.f: a function is not JSON. Only JSON data can be stored.',
    ],
  ];
  for (const [name, call, message] of bad) {
    it(`${name}: rejects with the waiting append still uncommitted, which then commits`, async () => {
      const path = join(dir, `store-${++n}.db`);
      const store = new SqliteStateStore({ path });
      await store.append("t", "main", [ev], 0);
      expect(committed(path)).toBe(1);
      const appended = store.append("t", "main", [ev], 1); // queued for the next tick
      const rejected = call(store); // (the bug committed the batch inside this call)
      expect(committed(path)).toBe(1);
      const error = await rejected.then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StateStoreError);
      expect((error as Error).message).toBe(message);
      expect((await appended).map((e) => e.seq)).toEqual([2]);
      expect(committed(path)).toBe(2);
      await store.close();
    });
  }
});
