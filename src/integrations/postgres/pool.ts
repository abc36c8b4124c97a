/**
 * The pool a PostgreSQL store can be given (the `pool` option): the part of pg's `Pool` the
 * stores call, as a structural type, so that the types of `nodestep/postgres` do not need
 * `@types/pg` (a `new pg.Pool(...)` is one).
 *
 * @module
 */

/** A query's answer, as the stores read it (pg's `QueryResult`). */
export interface PostgresQueryResult {
  /** The rows, one object per row keyed by column name. */
  rows: unknown[];
  /** Rows the statement touched or returned (`null` for statements without a count). */
  rowCount: number | null;
}

/** A connection checked out of the pool (pg's `PoolClient`). */
export interface PostgresPoolClient {
  /**
   * Run one SQL statement with `$1`, `$2`, … bound to `values`. On pg's own client (one with
   * pg's protocol `connection` and `removeListener`), `PostgresMemoryStore`'s exact search
   * passes a pg `Query` instead, whose rows are handed over as they arrive
   * (`client.query(new pg.Query(...))`); on any other client it calls this.
   */
  query(text: string, values?: unknown[]): Promise<PostgresQueryResult>;
  /** Give the connection back; with an error (or `true`), the pool closes it instead. */
  release(error?: Error | boolean): void;
  /** The connection failed while idle (the state store's lease session listens for it). */
  on(event: "error", listener: (error: Error) => void): unknown;
  /**
   * Stop listening (pg's clients have it: the memory store's exact search listens for
   * `"error"` while it streams rows, and reads them all first on a client without it).
   */
  removeListener?(event: "error", listener: (error: Error) => void): unknown;
}

/**
 * A pool of PostgreSQL connections: what {@link PostgresStateStore} and
 * {@link PostgresMemoryStore} call on the `pool` option. A store given a pool does not end it.
 *
 * @example
 * ```ts
 * import pg from "pg";
 * import { PostgresStateStore } from "nodestep/postgres";
 * const pool = new pg.Pool({ connectionString: "postgres://postgres@127.0.0.1:5432/app" });
 * const store = new PostgresStateStore({ pool });
 * ```
 */
export interface PostgresPool {
  /** Check a connection out (given back with `release`). */
  connect(): Promise<PostgresPoolClient>;
  /**
   * Run one SQL statement on any free connection: its text with `values`, or a named statement
   * (`{ name, text, values }`, which pg prepares once per connection and then runs by name; the
   * state store's appends are sent so).
   */
  query(
    text: string | { name: string; text: string; values: unknown[] },
    values?: unknown[],
  ): Promise<PostgresQueryResult>;
}
