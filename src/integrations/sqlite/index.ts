/**
 * `nodestep/sqlite`: the SQLite state store, on better-sqlite3 (a peer dependency).
 *
 * @module
 */
export {
  SQLITE_SCHEMA_VERSION,
  SqliteStateStore,
  type SqliteStateStoreOptions,
} from "./sqlite-state-store.js";
