/**
 * The SQLite state store's tables: their version, their DDL, and `setUpSchema`, which creates
 * them in an empty file or checks (and brings up to date) the ones a file holds, migrating a
 * version 1 file to version 2 (sqlite-state-migrate.ts).
 *
 * @module
 */
import type Database from "better-sqlite3";
import { StateStoreError } from "../../errors/index.js";

import { migrateToVersion2 } from "./sqlite-state-migrate.js";
import { SQLITE_SCHEMA_VERSION } from "./sqlite-versions.js";

export { SQLITE_SCHEMA_VERSION };

/** What the `meta` table says the file is. */
const FORMAT = "nodestep-state-store";

const TABLES = ["meta", "branches", "events", "snapshots", "leases"];

/**
 * The `events` table of version 2, named `name`: one B-tree keyed by the thread, branch and seq
 * (`WITHOUT ROWID`, so an append writes one B-tree, not a table and its key's index).
 * `total_bytes` is the logical bytes of the branch's events up to this one (the one before's
 * plus this row's): a branch's size, last seq and update time are its last event's, so an
 * append writes no `branches` row.
 */
function eventsTable(name: string): string {
  return `CREATE TABLE ${name} (
  thread_id TEXT NOT NULL,
  branch_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  run_id TEXT NOT NULL,
  step INTEGER,
  task_id TEXT,
  node TEXT,
  data TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  total_bytes INTEGER NOT NULL,
  PRIMARY KEY (thread_id, branch_id, seq)
) WITHOUT ROWID;`;
}

/**
 * `branches`: a branch's parent, and its `last_seq` and `updated_at` when it was made (a fork:
 * the parent's seq it starts after; "main": 0 and its first append's time). Once the branch
 * has events of its own, its last event's `seq` and `created_at` are its last seq and update
 * time (see sqlite-state-sql.ts). (A branch with events in a file migrated from version 1
 * keeps the values version 1 last wrote there, never read; see sqlite-state-migrate.ts.)
 */
const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE branches (
  thread_id TEXT NOT NULL,
  branch_id TEXT NOT NULL,
  parent_branch TEXT,
  parent_seq INTEGER,
  last_seq INTEGER NOT NULL,
  updated_at INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (thread_id, branch_id)
);
${eventsTable("events")}
CREATE TABLE snapshots (
  thread_id TEXT NOT NULL,
  branch_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  data TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  PRIMARY KEY (thread_id, branch_id)
);
CREATE TABLE leases (
  thread_id TEXT NOT NULL,
  branch_id TEXT NOT NULL,
  owner TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  host TEXT,
  pid INTEGER,
  started TEXT,
  stop_by TEXT,
  PRIMARY KEY (thread_id, branch_id)
);
`;

/**
 * Columns added to `leases` after version 1 was first released (added to older files on open):
 * the holder's machine and process, and `stop_by` (the run that asked the holder to stop).
 */
const LEASE_HOLDER_COLUMNS = ["host TEXT", "pid INTEGER", "started TEXT", "stop_by TEXT"];

/** Create the tables in an empty file, or check that the file holds this schema version. */
export function setUpSchema(db: Database.Database, path: string): void {
  db.transaction(() => {
    const present = (
      db
        .prepare(
          `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (${TABLES.map(() => "?").join(", ")})`,
        )
        .all(...TABLES) as { name: string }[]
    ).map((r) => r.name);
    if (present.length === 0) {
      db.exec(SCHEMA);
      const put = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?)");
      put.run("format", FORMAT);
      put.run("schema_version", String(SQLITE_SCHEMA_VERSION));
      return;
    }
    if (!present.includes("meta")) {
      throw new StateStoreError(
        `${path} is not a nodestep state store: it has tables (${present.join(", ")}) but no meta table. Use another file.`,
      );
    }
    const meta = new Map(
      (db.prepare("SELECT key, value FROM meta").all() as { key: string; value: string }[]).map(
        (r) => [r.key, r.value],
      ),
    );
    if (meta.get("format") !== FORMAT) {
      throw new StateStoreError(
        `${path} is not a nodestep state store (its meta table says format ${JSON.stringify(meta.get("format") ?? null)}). Use another file.`,
      );
    }
    const version = meta.get("schema_version");
    if (version !== "1" && version !== String(SQLITE_SCHEMA_VERSION)) {
      throw new StateStoreError(
        `${path} was written with state store schema version ${version ?? "(none)"}; this nodestep reads version ${SQLITE_SCHEMA_VERSION} (and migrates version 1 files to it). Open it with the nodestep version that wrote it (see docs/stores.md, "Schema versions"). Nothing was changed.`,
      );
    }
    const missing = TABLES.filter((t) => !present.includes(t));
    if (missing.length > 0) {
      throw new StateStoreError(
        `${path} is a damaged nodestep state store: table(s) ${missing.join(", ")} are missing. Restore it from a backup.`,
      );
    }
    if (version === "1") {
      try {
        migrateToVersion2(db, eventsTable("events_v2"));
      } catch (e) {
        if (!String((e as { code?: unknown }).code ?? "").startsWith("SQLITE_READONLY")) throw e;
        throw new StateStoreError(
          `${path} is a version 1 state store file, which this nodestep migrates to version 2 when it opens it, and this process cannot write it (${(e as Error).message}). Open it once with write access to migrate it, or open it with the nodestep version that wrote it. Nothing was changed.`,
          { cause: e },
        );
      }
    }
    // Files written before leases recorded their holder get the columns (readers that do not
    // know them ignore them).
    const columns = new Set(
      (db.prepare("SELECT name FROM pragma_table_info('leases')").all() as { name: string }[]).map(
        (r) => r.name,
      ),
    );
    for (const c of LEASE_HOLDER_COLUMNS) {
      if (!columns.has(c.split(" ")[0]!)) db.exec(`ALTER TABLE leases ADD COLUMN ${c}`);
    }
  }).immediate();
}
