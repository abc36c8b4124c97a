/**
 * The SQLite state store's plumbing: its database connection, prepared statements, branch-heads
 * cache and write batch; checking that it is open and committing the waiting writes before a
 * call, closing, and turning SQLite errors into `StateStoreError`. Every public method of
 * `SqliteStateStore` goes through it.
 *
 * @module
 */
import type Database from "better-sqlite3";
import { closedError } from "../../stores/internal.js";
import { appendOperation, BranchHeads } from "./sqlite-state-append.js";
import { leaseTransaction } from "./sqlite-state-leases.js";
import { listTransaction } from "./sqlite-state-list.js";
import { openSqliteStateDb, sqliteStoreError } from "./sqlite-state-open.js";
import type { SqliteStateStoreOptions } from "./sqlite-state-options.js";
import { readTransaction } from "./sqlite-state-read.js";
import { prepare, type SqliteStatements } from "./sqlite-state-sql.js";
import { SqliteWriteBatch } from "./sqlite-write-batch.js";

/**
 * Each store's plumbing, set by its base class's constructor and read once by the subclass's
 * (a WeakMap, so that no declaration of the public classes names `SqliteCore` and with it
 * better-sqlite3).
 */
export const storeCores = new WeakMap<object, SqliteCore>();

/** A store's connection, statements, caches and write batch, and whether it is open. */
export class SqliteCore {
  /** The database file this store was opened on. */
  readonly path: string;
  #db: Database.Database | null;
  /** The statements, each prepared on the connection by its first use and kept. */
  readonly s: SqliteStatements;
  /** The heads of the branches this store appended to (a cache; see BranchHeads). */
  readonly heads = new BranchHeads();
  /** The append operation, run inside the write batch's transaction. */
  readonly append: ReturnType<typeof appendOperation>;
  /** The write operations waiting to be committed together (see sqlite-write-batch.ts). */
  readonly batch: SqliteWriteBatch;
  readonly leaseTx: ReturnType<typeof leaseTransaction>;
  readonly readTx: ReturnType<typeof readTransaction>;
  readonly listTx: ReturnType<typeof listTransaction>;

  /**
   * Open (or create) the store's file and its tables.
   * @throws StateStoreError when the file cannot be opened or holds an incompatible schema.
   */
  constructor(options: SqliteStateStoreOptions) {
    const db = openSqliteStateDb(options);
    this.path = options.path;
    this.#db = db;
    const s = prepare(db);
    this.s = s;
    this.append = appendOperation(s, this.heads);
    this.batch = new SqliteWriteBatch(db, this.heads, this.path);
    this.leaseTx = leaseTransaction(db, s);
    this.readTx = readTransaction(db, s);
    this.listTx = listTransaction(db, s);
  }

  /** The connection; only called after {@link open} or {@link openAll} passed. */
  get db(): Database.Database {
    return this.#db!;
  }

  /**
   * Throw when closed; with `threadId`, first commit the waiting writes when one is of that
   * thread, so that calls apply in the order they were made.
   */
  open(threadId?: string): void {
    if (!this.#db) throw closedError("SqliteStateStore");
    if (threadId !== undefined && this.batch.pending(threadId)) this.batch.flush();
  }

  /** Throw when closed, else commit every waiting write. */
  openAll(): void {
    this.open();
    this.batch.flush();
  }

  /** Run `fn`, turning a SQLite error into `StateStoreError` (ours pass through). */
  run<T>(threadId: string | undefined, branchId: string | undefined, fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      throw sqliteStoreError(this.path, threadId, branchId, e);
    }
  }

  /** Commit the waiting writes and close the file (checkpointing the WAL); a no-op when closed. */
  close(): void {
    const db = this.#db;
    if (!db) return;
    this.batch.flush();
    this.#db = null;
    db.close();
  }
}
