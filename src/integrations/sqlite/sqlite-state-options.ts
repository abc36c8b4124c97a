/**
 * The options of `SqliteStateStore`: types only, so nodestep/sqlite's declarations need no
 * better-sqlite3 types.
 *
 * @module
 */
/** Options of `SqliteStateStore`. */
export interface SqliteStateStoreOptions {
  /** The database file, created when missing (with its directory); `":memory:"` for a private in-memory database. */
  path: string;
  /**
   * How hard a commit waits for the disk. `"NORMAL"` (default): in WAL mode, an acknowledged
   * append survives the process being killed (SIGKILL, crash), but the last commits may be lost
   * if the machine loses power or the OS crashes. `"FULL"`: every commit is synced to disk
   * before `append` resolves, and survives power loss too, at the cost of one fsync per commit
   * (the writes waiting together share one; see `SqliteStateStore`).
   */
  synchronous?: "NORMAL" | "FULL";
  /** How long a write waits for another process's write lock before failing, in ms (default 5,000). */
  busyTimeoutMs?: number;
  /**
   * `true`: this store object is the file's only connection (SQLite's `locking_mode =
   * EXCLUSIVE`). It takes the file's lock when it opens and holds it until `close()`, so its
   * transactions skip SQLite's per-transaction file locks (6 `fcntl` calls a transaction; about a
   * quarter less CPU for a lone append) and the write-ahead log's index lives in this process's
   * memory. Nothing else can use the file meanwhile: another process, or another store object
   * in this one, fails to open it (`StateStoreError`, after `busyTimeoutMs`). Durability is the
   * same (see `synchronous`; a killed process's commits are in the WAL, which the next opening
   * recovers). Default `false`: processes may share the file.
   */
  exclusive?: boolean;
}
