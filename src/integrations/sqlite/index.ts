/**
 * `nodestep/sqlite`: the SQLite state store and memory store, on better-sqlite3 (a peer dependency).
 *
 * @module
 */
export {
  SQLITE_MEMORY_SCHEMA_VERSION,
  type SqliteDatabase,
  SqliteMemoryStore,
  type SqliteMemoryStoreOptions,
} from "./sqlite-memory-store.js";
export {
  SQLITE_SCHEMA_VERSION,
  SqliteStateStore,
  type SqliteStateStoreOptions,
} from "./sqlite-state-store.js";
