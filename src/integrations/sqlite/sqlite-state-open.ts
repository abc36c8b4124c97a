/**
 * The SQLite state store's options, and opening its file with them: the checks, the
 * directory, the pragmas, the schema, and what to say about a SQLite error.
 *
 * @module
 */
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { StateStoreError } from "../../errors/index.js";
import type { SqliteStateStoreOptions } from "./sqlite-state-options.js";
import { setUpSchema } from "./sqlite-state-schema.js";

export type { SqliteStateStoreOptions };

/**
 * Open (or create) the database file `options` names, in WAL mode with its tables.
 * @throws StateStoreError when the options are invalid, or the file cannot be opened or holds
 *   an incompatible schema.
 */
export function openSqliteStateDb(options: SqliteStateStoreOptions): Database.Database {
  if (!options || typeof options.path !== "string" || options.path === "") {
    throw new StateStoreError("SqliteStateStore needs a { path } to a database file");
  }
  const sync = options.synchronous ?? "NORMAL";
  if (sync !== "NORMAL" && sync !== "FULL") {
    throw new StateStoreError(`synchronous must be "NORMAL" or "FULL", got ${String(sync)}`);
  }
  const exclusive = options.exclusive ?? false;
  if (typeof exclusive !== "boolean") {
    throw new StateStoreError(`exclusive must be true or false, got ${String(exclusive)}`);
  }
  let db: Database.Database | undefined;
  try {
    if (options.path !== ":memory:") makeDirectory(options.path);
    db = new Database(options.path);
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5_000))}`);
    // Exclusive: set before WAL mode, so that the log's index is kept in memory, not in a
    // shared -shm file; the lock is taken at once (an empty EXCLUSIVE transaction) and held.
    if (exclusive) db.pragma("locking_mode = EXCLUSIVE");
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${sync}`);
    if (exclusive) db.exec("BEGIN EXCLUSIVE; COMMIT");
    setUpSchema(db, options.path);
  } catch (e) {
    db?.close();
    if (e instanceof StateStoreError) throw e;
    if (exclusive && String((e as { code?: unknown }).code ?? "") === "SQLITE_BUSY") {
      throw new StateStoreError(
        `Cannot open the SQLite state store at ${options.path} with exclusive: true: another connection (another process, or another store object in this one) has the file open. Close it first, or open every store on the file without exclusive.`,
        { cause: e },
      );
    }
    throw new StateStoreError(
      `Cannot open the SQLite state store at ${options.path}: ${(e as Error).message}.${sqliteHint(e, true)}`,
      { cause: e },
    );
  }
  return db;
}

/**
 * A failed call's error as the store throws it: a `StateStoreError` as it is, anything else
 * (a SQLite error) wrapped in one that names the file, the thread, and what to do about it.
 */
export function sqliteStoreError(
  path: string,
  threadId: string | undefined,
  branchId: string | undefined,
  e: unknown,
): StateStoreError {
  if (e instanceof StateStoreError) return e;
  return new StateStoreError(
    `SQLite state store ${path} failed${threadId === undefined ? "" : ` on thread "${threadId}"`}: ${(e as Error).message}.${sqliteHint(e)}`,
    { threadId, branchId, cause: e },
  );
}

/**
 * What to do about a SQLite error, by its code (`""` when there is nothing to add).
 * @param opening - the error came while opening the store (which writes: WAL mode, the schema).
 */
export function sqliteHint(e: unknown, opening = false): string {
  const code = String((e as { code?: unknown }).code ?? "");
  if (code === "SQLITE_CORRUPT" || code === "SQLITE_NOTADB")
    return " The file is damaged or not a SQLite database; restore it from a backup or use another path.";
  if (code === "SQLITE_BUSY")
    return " Another connection (another process, or another store object in this one) held the write lock too long, or a store opened with exclusive: true holds the file; retry or raise busyTimeoutMs.";
  if (code.startsWith("SQLITE_READONLY"))
    return opening
      ? " The file or its directory is read-only: the store opens its file for writing (WAL mode, and a version 1 file's migration), even to read; open it on a file and directory this process can write."
      : " The file or its directory is read-only: reading works, writing does not; open the store on a file this process can write.";
  if (code.startsWith("SQLITE_CANTOPEN"))
    return " The path must name a file (not a directory) in a directory this process can write.";
  return "";
}

/** Makes the directory of a database file; a part of it that is a file is named. */
export function makeDirectory(path: string): void {
  const dir = dirname(resolve(path));
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "EEXIST" && code !== "ENOTDIR") throw e;
    throw new StateStoreError(
      `Cannot open the SQLite state store at ${path}: its directory ${dir} cannot be made because a part of that path is a file, not a directory`,
      { cause: e },
    );
  }
}
