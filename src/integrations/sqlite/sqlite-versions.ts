/**
 * The versions of the SQLite state and memory tables, in a module of their own so nodestep/sqlite's
 * declarations need no better-sqlite3 types.
 *
 * @module
 */

/** Version of the memory tables this code reads and writes; kept in `<prefix>meta`. */
export const SQLITE_MEMORY_SCHEMA_VERSION = 2;

/**
 * Version of the tables this code reads and writes; kept in the `meta` table. Version 1 files
 * are migrated to it when opened (sqlite-state-migrate.ts).
 */
export const SQLITE_SCHEMA_VERSION = 2;
