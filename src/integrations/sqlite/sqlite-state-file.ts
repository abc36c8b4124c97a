/**
 * The SQLite state store's file on disk: compaction (`VACUUM`), write-ahead log checkpoints,
 * and the bytes the file and its log take.
 *
 * @module
 */
import { statSync } from "node:fs";
import type Database from "better-sqlite3";

/** Checkpoint the write-ahead log, `VACUUM` the file, and checkpoint again (see `compact`). */
export function compactSqliteFile(db: Database.Database): void {
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.exec("VACUUM");
  db.pragma("wal_checkpoint(TRUNCATE)");
}

/** Copy the write-ahead log into the file and truncate it (see `checkpoint`). */
export function checkpointSqliteFile(db: Database.Database): void {
  db.pragma("wal_checkpoint(TRUNCATE)");
}

/** Bytes of the file at `path` plus its `-wal` file (a missing one counts 0; `":memory:"` is 0). */
export function sqliteFileSizeBytes(path: string): number {
  let n = 0;
  for (const f of [path, `${path}-wal`]) {
    try {
      n += statSync(f).size;
    } catch {
      // missing file: 0 bytes
    }
  }
  return path === ":memory:" ? 0 : n;
}
