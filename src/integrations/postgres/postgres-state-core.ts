/**
 * The PostgreSQL state store's plumbing: its pool (made from a connection string or given),
 * its tables, setting up the schema once, closing, and turning database errors into
 * `StateStoreError`. Every public method of `PostgresStateStore` goes through it.
 *
 * @module
 */
import pg from "pg";
import { StateStoreError } from "../../errors/index.js";
import { closedError } from "../../stores/internal.js";
import { checkSchemaName, type PostgresStateStoreOptions } from "./postgres-state-options.js";
import { setUpPostgresSchema } from "./postgres-state-schema.js";
import type { PgStore, PgTables } from "./postgres-state-sql.js";

/**
 * Each store's plumbing, set by its base class's constructor and read once by the subclass's
 * (a WeakMap, so that no declaration of the public classes names `PostgresCore` and with it pg).
 */
export const storeCores = new WeakMap<object, PostgresCore>();

/** A store's pool, tables and schema, and whether it is set up and open. */
export class PostgresCore implements PgStore {
  readonly schema: string;
  readonly pool: pg.Pool;
  readonly t: PgTables;
  readonly #ownsPool: boolean;
  #ready: Promise<void> | null = null;
  /** Whether the schema's set-up succeeded (then {@link ready} has nothing left to wait for). */
  #set = false;
  #closed = false;

  /**
   * @throws StateStoreError for an invalid schema name, a system schema (`pg_*`,
   *   `information_schema`) or `public`, or when neither `connectionString` nor `pool` is given.
   */
  constructor(options: PostgresStateStoreOptions) {
    const schema = checkSchemaName(options);
    this.schema = schema;
    const q = `"${schema}"`;
    this.t = {
      meta: `${q}.meta`,
      branches: `${q}.branches`,
      events: `${q}.events`,
      snapshots: `${q}.snapshots`,
      leases: `${q}.leases`,
    };
    if (options.pool) {
      this.pool = options.pool as unknown as pg.Pool; // only what PostgresPool names is called on it
      this.#ownsPool = false;
    } else if (typeof options.connectionString === "string" && options.connectionString !== "") {
      this.pool = new pg.Pool({ connectionString: options.connectionString });
      // An idle client losing its connection must not crash the process; the next query reports it.
      this.pool.on("error", () => {});
      this.#ownsPool = true;
    } else {
      throw new StateStoreError("PostgresStateStore needs a connectionString or a pool");
    }
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Set up (or check) the schema once; a failed set-up is tried again on the next call. */
  ready(): Promise<void> {
    this.open();
    if (!this.#ready) {
      this.#ready = setUpPostgresSchema(this).then(
        () => {
          this.#set = true;
        },
        (e: unknown) => {
          this.#ready = null;
          throw e;
        },
      );
    }
    return this.#ready;
  }

  /** `true` once the schema is set up: a caller may skip awaiting {@link ready} (one turn less). */
  get isSet(): boolean {
    return this.#set;
  }

  /** Throw `StateStoreError` when the store is closed. */
  open(): void {
    if (this.#closed) throw closedError("PostgresStateStore");
  }

  /** Mark closed (later calls throw); `true` the first time. */
  markClosed(): boolean {
    if (this.#closed) return false;
    this.#closed = true;
    return true;
  }

  /** End the pool when the store made it (a pool passed in is left open). */
  async endPool(): Promise<void> {
    if (this.#ownsPool) await this.pool.end();
  }

  /** Run `fn`, turning a database error into `StateStoreError` (ours pass through). */
  async run<T>(
    threadId: string | undefined,
    branchId: string | undefined,
    fn: () => Promise<T>,
  ): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw this.storeError(e, threadId, branchId);
    }
  }

  /** `e` as the `StateStoreError` a method throws. */
  storeError(e: unknown, threadId?: string, branchId?: string): StateStoreError {
    if (e instanceof StateStoreError) return e;
    if (this.#closed) return closedError("PostgresStateStore");
    return new StateStoreError(
      `PostgreSQL state store (schema "${this.schema}") failed${threadId === undefined ? "" : ` on thread "${threadId}"`}: ${(e as Error).message}`,
      { threadId, branchId, cause: e },
    );
  }
}
