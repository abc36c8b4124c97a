/**
 * The migration of a SQLite state store file from schema version 1 to 2, run by
 * `setUpSchema` (inside its `IMMEDIATE` transaction) when it opens a version 1 file.
 *
 * Version 2 (see sqlite-state-schema.ts): `events` is one `WITHOUT ROWID` B-tree with a
 * running `total_bytes` per branch, and `branches` loses `bytes` (a branch's size is its last
 * event's `total_bytes`); an append then writes the events' B-tree alone.
 *
 * `branches.last_seq` and `updated_at` are kept as version 1 left them, on purpose. Version 1
 * advanced them with every append (in the append's transaction, and only when it inserted
 * events: "main" was made by its first append, already at its last seq); version 2 writes them
 * once, when the branch is made (a fork: the seq it starts after, and 0; "main": 0 and its
 * first append's time), and reads them only for a branch with no events of its own: a
 * branch's last seq and update time are its last event's `seq` and `created_at`, else the
 * row's (`BRANCH_LAST_SEQ`, a `coalesce`, in sqlite-state-sql.ts). So a
 * migrated branch with events of its own holds its version 1 last seq and time, stale from its
 * next append on and never read while it has events (which only a deletion of the whole thread
 * removes, with the row); one with none holds what version 2 would have written, its fork's
 * seq and time 0, as version 1 never advanced a branch without inserting its events. Every
 * value read is the one worked out from the events (migrate.test.ts checks them, before and
 * after an append). Rewriting the columns to version 2's values would change nothing read.
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
