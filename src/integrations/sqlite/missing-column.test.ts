/**
 * The SQLite store prepares each statement on its first use (sqlite-state-sql.ts `prepare`), so
 * a file whose tables have the right names but lack a column opens, and the first call that
 * needs the column fails as a `StateStoreError` naming the SQLite error (the constructor threw
 * the bare `SqliteError` when every statement was prepared on open).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
import { StateStoreError } from "../../errors/index.js";
import { SqliteStateStore } from "./index.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-sqlite-column-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("opens a file whose events table lacks a column, and fails the first call that needs it as a StateStoreError", async () => {
  const path = join(dir, "damaged.db");
  const first = new SqliteStateStore({ path });
  await first.append(
    "t",
    "main",
    [{ type: "run_started", runId: "r1", step: null, taskId: null, node: null, data: { n: 1 } }],
    0,
  );
  await first.close();
  const db = new Database(path);
  db.exec("ALTER TABLE events DROP COLUMN total_bytes");
  db.close();

  const store = new SqliteStateStore({ path });
  // Reading does not use the column.
  expect((await store.read("t", "main")).map((e) => [e.seq, e.data])).toEqual([[1, { n: 1 }]]);
  const write = store.append(
    "t",
    "main",
    [{ type: "run_started", runId: "r2", step: null, taskId: null, node: null, data: { n: 2 } }],
    1,
  );
  await expect(write).rejects.toThrow(StateStoreError);
  await expect(write).rejects.toThrow(
    `SQLite state store ${path} failed on thread "t": no such column: total_bytes.`,
  );
  await expect(store.sizeBytes()).rejects.toThrow(
    new StateStoreError(`SQLite state store ${path} failed: no such column: e.total_bytes.`),
  );
  await store.close();
});
