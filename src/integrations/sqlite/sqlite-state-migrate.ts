/**
 * The migration of a SQLite state store file from schema version 1 to 2, run by
 * `setUpSchema` (inside its `IMMEDIATE` transaction) when it opens a version 1 file.
 *
 * Version 2 (see sqlite-state-schema.ts): `events` is one `WITHOUT ROWID` B-tree with a
 * running `total_bytes` per branch, and `branches` loses `bytes` (a branch's size is its last
 * event's `total_bytes`); an append then writes the events' B-tree alone.
 *
 * @module
 */
import type Database from "better-sqlite3";

/**
 * One version 1 row's logical bytes (as `eventRowBytes` counts them: the UTF-8 bytes of its
 * text columns and 8 for each of its three numbers), in SQL.
 */
const ROW_BYTES =
  "octet_length(thread_id) + octet_length(branch_id) + octet_length(type) + octet_length(run_id) + coalesce(octet_length(task_id), 0) + coalesce(octet_length(node), 0) + octet_length(data) + 24";

/**
 * Rewrite a version 1 file's `events` as version 2's (every row copied, with its branch's
 * running total of bytes), drop `branches.bytes`, and record version 2. `createEventsV2` is
 * version 2's `CREATE TABLE events_v2`. Run inside a transaction: a failure leaves the file
 * at version 1.
 */
export function migrateToVersion2(db: Database.Database, createEventsV2: string): void {
  db.exec(`${createEventsV2}
INSERT INTO events_v2 (thread_id, branch_id, seq, type, run_id, step, task_id, node, data, created_at, total_bytes)
  SELECT thread_id, branch_id, seq, type, run_id, step, task_id, node, data, created_at,
    sum(${ROW_BYTES}) OVER (PARTITION BY thread_id, branch_id ORDER BY seq)
  FROM events;
DROP TABLE events;
ALTER TABLE events_v2 RENAME TO events;
ALTER TABLE branches DROP COLUMN bytes;
UPDATE meta SET value = '2' WHERE key = 'schema_version';`);
}
