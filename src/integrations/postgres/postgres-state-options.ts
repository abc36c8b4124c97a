/**
 * The PostgreSQL state store's options, and the check of its schema name.
 *
 * @module
 */
import { StateStoreError } from "../../errors/index.js";
import type { PostgresPool } from "./pool.js";
import { TABLES } from "./postgres-state-schema.js";

/** Options of `PostgresStateStore`. */
export interface PostgresStateStoreOptions {
  /** `postgres://user:password@host:port/database`; used to make a pool when `pool` is not given. */
  connectionString?: string;
  /**
   * The PostgreSQL schema that holds the store's tables, created when missing (default
   * `"nodestep"`). Letters, digits and `_`, not starting with a digit, at most 63 characters.
   * A schema of the store's own: `public`, `information_schema` and `pg_*` are refused (in any
   * letter case).
   */
  schema?: string;
  /**
   * A pool to use instead of making one (a pg `Pool`; typed structurally, see
   * {@link PostgresPool}); the store then does not end it on `close()`. The store does not
   * change the pool's type parsers or settings.
   */
  pool?: PostgresPool;
}

/**
 * `options.schema`, or `"nodestep"` when not given, once checked.
 * @throws StateStoreError for an invalid schema name, a system schema (`pg_*`,
 *   `information_schema`) or `public`.
 */
export function checkSchemaName(options: PostgresStateStoreOptions): string {
  const schema = options?.schema ?? "nodestep";
  if (typeof schema !== "string" || !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new StateStoreError(
      `Invalid PostgreSQL schema name ${JSON.stringify(schema)}: use letters, digits and _, not starting with a digit, at most 63 characters`,
    );
  }
  const lower = schema.toLowerCase();
  if (lower.startsWith("pg_") || lower === "information_schema") {
    throw new StateStoreError(
      `PostgreSQL schema "${schema}" is a system schema; the state store creates its tables (${TABLES.join(", ")}) in a schema of its own: pick another name, such as "nodestep" (the default)`,
    );
  }
  if (lower === "public") {
    throw new StateStoreError(
      `PostgreSQL schema "${schema}" is the database's shared default schema; the state store creates its tables (${TABLES.join(", ")}) in a schema of its own, so that they never mix with the application's: pick another name, such as "nodestep" (the default)`,
    );
  }
  return schema;
}
