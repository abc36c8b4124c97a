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
   * before `append` resolves, and survives power loss too, at the cost of one fsync per append.
   */
  synchronous?: "NORMAL" | "FULL";
  /** How long a write waits for another process's write lock before failing, in ms (default 5,000). */
  busyTimeoutMs?: number;
}
